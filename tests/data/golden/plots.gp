# gcbench plots; to redraw them, run in the report directory: gnuplot plots.gp
set terminal svg size 720,360 dynamic noenhanced font 'sans,11' background '#ffffff'

reset
set output 'plot-1-ranks.svg'
set title 'gemm: fp32 8192x8192x8192'
set style fill solid 0.85 noborder
set grid ytics lc rgb '#dddddd'
set key below horizontal
set boxwidth 0.8
set xlabel 'rank'
set ylabel 'GFLOP/s'
set xrange [-0.5:3.5]
set yrange [0:*]
set xtics 1 rotate by -30
$ranks1 << EOD
0 650000 0 r0/1b:00
1 655000 0 r1/2c:00
2 455000 1 r2/1b:00
3 652000 0 r3/2c:00
EOD
plot $ranks1 using 1:($3 == 0 ? $2 : NaN):xtic(4) with boxes lc rgb '#4e79a7' title 'rank', \
  $ranks1 using 1:($3 != 0 ? $2 : NaN):xtic(4) with boxes lc rgb '#e15759' title 'outlier (slow rank)', \
  603000 with lines dt 2 lw 2 lc rgb '#333333' title 'mean 603000'

reset
set output 'plot-2-ranks.svg'
set title 'gemm: fp16 8192x8192x8192'
set style fill solid 0.85 noborder
set grid ytics lc rgb '#dddddd'
set key below horizontal
set boxwidth 0.8
set xlabel 'rank'
set ylabel 'GFLOP/s'
set xrange [-0.5:3.5]
set yrange [0:*]
set xtics 1 rotate by -30
$ranks2 << EOD
0 980000 0 r0/1b:00
1 979000 0 r1/2c:00
2 981000 0 r2/1b:00
3 978000 0 r3/2c:00
EOD
plot $ranks2 using 1:($3 == 0 ? $2 : NaN):xtic(4) with boxes lc rgb '#4e79a7' title 'rank', \
  979500 with lines dt 2 lw 2 lc rgb '#333333' title 'mean 979500'

reset
set output 'plot-3-ranks.svg'
set title 'membw: triad 1G'
set style fill solid 0.85 noborder
set grid ytics lc rgb '#dddddd'
set key below horizontal
set boxwidth 0.8
set xlabel 'rank'
set ylabel 'GB/s'
set xrange [-0.5:3.5]
set yrange [0:*]
set xtics 1 rotate by -30
$ranks3 << EOD
0 4000 0 r0/1b:00
1 4010 0 r1/2c:00
2 3990 0 r2/1b:00
3 4005 0 r3/2c:00
EOD
plot $ranks3 using 1:($3 == 0 ? $2 : NaN):xtic(4) with boxes lc rgb '#4e79a7' title 'rank', \
  4001.25 with lines dt 2 lw 2 lc rgb '#333333' title 'mean 4001'

reset
set output 'plot-4-bw.svg'
set title 'allreduce float sum cuda: bandwidth vs message size'
set style fill solid 0.85 noborder
set grid ytics lc rgb '#dddddd'
set key below horizontal
set logscale x 2
set logscale y
set format x '%.0b%B'
set xlabel 'message size (bytes)'
set ylabel 'GB/s'
$bw4o << EOD
1048576 26.66666667 40
16777216 140 210
268435456 253.3333333 380
EOD
plot $bw4o using 1:3 with linespoints dt 1 lc rgb '#f28e2b' title 'busbw out-of-place', \
  $bw4o using 1:2 with linespoints dt 1 lc rgb '#4e79a7' title 'algbw out-of-place'

reset
set output 'plot-5-times.svg'
set title 'allreduce float sum cuda at 268435456 B: time per rank'
set style fill solid 0.85 noborder
set grid ytics lc rgb '#dddddd'
set key below horizontal
set style fill empty
set boxwidth 0.6
set xlabel 'rank'
set ylabel 'microseconds'
set xrange [-0.5:3.5]
set yrange [0:*]
set xtics 1
$t5 << EOD
0 1038.421369 1059.613642 1111.534711 1112.594324 1
1 1038.421369 1059.613642 1111.534711 1112.594324 2
2 1038.421369 1059.613642 1111.534711 1112.594324 1
3 1038.421369 1059.613642 1111.534711 1112.594324 40
EOD
plot $t5 using 1:3:2:5:4 with candlesticks whiskerbars lc rgb '#4e79a7' title 'min, median to p99, max', \
  $t5 using 1:3:3:3:3 with candlesticks lc rgb '#1d2125' notitle, \
  $t5 using 1:6 with points pt 7 lc rgb '#e15759' title 'mean lateness'
