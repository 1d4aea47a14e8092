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
set xtics 1
$ranks1 << EOD
0 650000 0
1 655000 0
2 455000 1
3 652000 0
EOD
plot $ranks1 using 1:($3 == 0 ? $2 : NaN) with boxes lc rgb '#4e79a7' title 'rank', \
  $ranks1 using 1:($3 != 0 ? $2 : NaN) with boxes lc rgb '#e15759' title 'outlier (slow rank)', \
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
set xtics 1
$ranks2 << EOD
0 980000 0
1 979000 0
2 981000 0
3 978000 0
EOD
plot $ranks2 using 1:($3 == 0 ? $2 : NaN) with boxes lc rgb '#4e79a7' title 'rank', \
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
set xtics 1
$ranks3 << EOD
0 4000 0
1 4010 0
2 3990 0
3 4005 0
EOD
plot $ranks3 using 1:($3 == 0 ? $2 : NaN) with boxes lc rgb '#4e79a7' title 'rank', \
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
$bw4 << EOD
1048576 26.66666667 40
16777216 140 210
268435456 253.3333333 380
EOD
plot $bw4 using 1:2 with linespoints lc rgb '#4e79a7' title 'algbw', \
  $bw4 using 1:3 with linespoints lc rgb '#f28e2b' title 'busbw'
