# gcbench plots; to redraw them, run in the report directory: gnuplot plots.gp
set terminal svg size 720,360 dynamic noenhanced font 'sans,11' background '#ffffff'

reset
set output 'plot-1-ranks.svg'
set title 'gemm: bf16 8192x8192x8192'
set style fill solid 0.85 noborder
set grid ytics lc rgb '#dddddd'
set key below horizontal
set boxwidth 0.8
set xlabel 'rank'
set ylabel 'GFLOP/s'
set xrange [-0.5:7.5]
set yrange [0:*]
set xtics 1 rotate by -30
$ranks1 << EOD
0 754830.6928 0 r0/19:00
1 453261.2526 1 r1/3b:00
2 750248.7593 0 r2/4c:00
3 747132.9613 0 r3/5d:00
4 745904.3504 0 r4/9b:00
5 750117.5044 0 r5/bb:00
6 746167.1131 0 r6/cb:00
7 744611.8896 0 r7/db:00
EOD
plot $ranks1 using 1:($3 == 0 ? $2 : NaN):xtic(4) with boxes lc rgb '#4e79a7' title 'rank', \
  $ranks1 using 1:($3 != 0 ? $2 : NaN):xtic(4) with boxes lc rgb '#e15759' title 'outlier (slow rank)', \
  711534.3155 with lines dt 2 lw 2 lc rgb '#333333' title 'mean 711534'

reset
set output 'plot-2-ranks.svg'
set title 'gemm: fp8 8192x8192x8192'
set style fill solid 0.85 noborder
set grid ytics lc rgb '#dddddd'
set key below horizontal
set boxwidth 0.8
set xlabel 'rank'
set ylabel 'GFLOP/s'
set xrange [-0.5:7.5]
set yrange [0:*]
set xtics 1 rotate by -30
$ranks2 << EOD
0 1451445.012 0 r0/19:00
1 870580.1795 1 r1/3b:00
2 1453961.895 0 r2/4c:00
3 1443373.711 0 r3/5d:00
4 1450036.288 0 r4/9b:00
5 1449530.622 0 r5/bb:00
6 1439082.74 0 r6/cb:00
7 1453900.48 0 r7/db:00
EOD
plot $ranks2 using 1:($3 == 0 ? $2 : NaN):xtic(4) with boxes lc rgb '#4e79a7' title 'rank', \
  $ranks2 using 1:($3 != 0 ? $2 : NaN):xtic(4) with boxes lc rgb '#e15759' title 'outlier (slow rank)', \
  1376488.866 with lines dt 2 lw 2 lc rgb '#333333' title 'mean 1376489'

reset
set output 'plot-3-ranks.svg'
set title 'gemm: tf32 8192x8192x8192'
set style fill solid 0.85 noborder
set grid ytics lc rgb '#dddddd'
set key below horizontal
set boxwidth 0.8
set xlabel 'rank'
set ylabel 'GFLOP/s'
set xrange [-0.5:7.5]
set yrange [0:*]
set xtics 1 rotate by -30
$ranks3 << EOD
0 370593.3155 0 r0/19:00
1 224651.9144 1 r1/3b:00
2 370375.493 0 r2/4c:00
3 369732.3007 0 r3/5d:00
4 372280.6008 0 r4/9b:00
5 370367.7638 0 r5/bb:00
6 371681.7074 0 r6/cb:00
7 369323.7431 0 r7/db:00
EOD
plot $ranks3 using 1:($3 == 0 ? $2 : NaN):xtic(4) with boxes lc rgb '#4e79a7' title 'rank', \
  $ranks3 using 1:($3 != 0 ? $2 : NaN):xtic(4) with boxes lc rgb '#e15759' title 'outlier (slow rank)', \
  352375.8548 with lines dt 2 lw 2 lc rgb '#333333' title 'mean 352376'

reset
set output 'plot-4-ranks.svg'
set title 'gemm: fp64 8192x8192x8192'
set style fill solid 0.85 noborder
set grid ytics lc rgb '#dddddd'
set key below horizontal
set boxwidth 0.8
set xlabel 'rank'
set ylabel 'GFLOP/s'
set xrange [-0.5:7.5]
set yrange [0:*]
set xtics 1 rotate by -30
$ranks4 << EOD
0 55059.99725 0 r0/19:00
1 33169.00763 1 r1/3b:00
2 55191.46793 0 r2/4c:00
3 55035.32987 0 r3/5d:00
4 54702.36529 0 r4/9b:00
5 55122.43599 0 r5/bb:00
6 55021.13746 0 r6/cb:00
7 55198.12859 0 r7/db:00
EOD
plot $ranks4 using 1:($3 == 0 ? $2 : NaN):xtic(4) with boxes lc rgb '#4e79a7' title 'rank', \
  $ranks4 using 1:($3 != 0 ? $2 : NaN):xtic(4) with boxes lc rgb '#e15759' title 'outlier (slow rank)', \
  52312.48375 with lines dt 2 lw 2 lc rgb '#333333' title 'mean 52312'

reset
set output 'plot-5-ranks.svg'
set title 'membw: triad 4G'
set style fill solid 0.85 noborder
set grid ytics lc rgb '#dddddd'
set key below horizontal
set boxwidth 0.8
set xlabel 'rank'
set ylabel 'GB/s'
set xrange [-0.5:7.5]
set yrange [0:*]
set xtics 1 rotate by -30
$ranks5 << EOD
0 4004.324659 0 r0/19:00
1 4021.763708 0 r1/3b:00
2 3998.968795 0 r2/4c:00
3 4004.039281 0 r3/5d:00
4 4013.335529 0 r4/9b:00
5 3978.262308 0 r5/bb:00
6 3991.966795 0 r6/cb:00
7 3989.999429 0 r7/db:00
EOD
plot $ranks5 using 1:($3 == 0 ? $2 : NaN):xtic(4) with boxes lc rgb '#4e79a7' title 'rank', \
  4000.332563 with lines dt 2 lw 2 lc rgb '#333333' title 'mean 4000'

reset
set output 'plot-6-ranks.svg'
set title 'pcie: h2d pinned 1G'
set style fill solid 0.85 noborder
set grid ytics lc rgb '#dddddd'
set key below horizontal
set boxwidth 0.8
set xlabel 'rank'
set ylabel 'GB/s'
set xrange [-0.5:7.5]
set yrange [0:*]
set xtics 1 rotate by -30
$ranks6 << EOD
0 53.52486317 0 r0/19:00
1 52.97539156 0 r1/3b:00
2 53.17283836 0 r2/4c:00
3 53.16413439 0 r3/5d:00
4 52.92556854 0 r4/9b:00
5 52.58902824 0 r5/bb:00
6 53.25568365 0 r6/cb:00
7 52.89209286 0 r7/db:00
EOD
plot $ranks6 using 1:($3 == 0 ? $2 : NaN):xtic(4) with boxes lc rgb '#4e79a7' title 'rank', \
  53.0624501 with lines dt 2 lw 2 lc rgb '#333333' title 'mean 53.06'

reset
set output 'plot-7-ranks.svg'
set title 'pcie: d2h pinned 1G'
set style fill solid 0.85 noborder
set grid ytics lc rgb '#dddddd'
set key below horizontal
set boxwidth 0.8
set xlabel 'rank'
set ylabel 'GB/s'
set xrange [-0.5:7.5]
set yrange [0:*]
set xtics 1 rotate by -30
$ranks7 << EOD
0 53.19025851 0 r0/19:00
1 52.65410482 0 r1/3b:00
2 52.8839345 0 r2/4c:00
3 53.33305766 0 r3/5d:00
4 53.37921606 0 r4/9b:00
5 52.65484847 0 r5/bb:00
6 52.64680602 0 r6/cb:00
7 52.98826992 0 r7/db:00
EOD
plot $ranks7 using 1:($3 == 0 ? $2 : NaN):xtic(4) with boxes lc rgb '#4e79a7' title 'rank', \
  52.966312 with lines dt 2 lw 2 lc rgb '#333333' title 'mean 52.97'

reset
set output 'plot-8-ranks.svg'
set title 'pcie: host_to_device_memcpy_ce'
set style fill solid 0.85 noborder
set grid ytics lc rgb '#dddddd'
set key below horizontal
set boxwidth 0.8
set xlabel 'rank'
set ylabel 'GB/s'
set xrange [-0.5:7.5]
set yrange [0:*]
set xtics 1 rotate by -30
$ranks8 << EOD
0 55.21 0 r0/19:00
1 55.223 0 r1/3b:00
2 55.236 0 r2/4c:00
3 55.249 0 r3/5d:00
4 55.262 0 r4/9b:00
5 21.8043 1 r5/bb:00
6 55.288 0 r6/cb:00
7 55.301 0 r7/db:00
EOD
plot $ranks8 using 1:($3 == 0 ? $2 : NaN):xtic(4) with boxes lc rgb '#4e79a7' title 'rank', \
  $ranks8 using 1:($3 != 0 ? $2 : NaN):xtic(4) with boxes lc rgb '#e15759' title 'outlier (slow rank)', \
  51.0716625 with lines dt 2 lw 2 lc rgb '#333333' title 'mean 51.07'

reset
set output 'plot-9-ranks.svg'
set title 'pcie: device_to_host_memcpy_ce'
set style fill solid 0.85 noborder
set grid ytics lc rgb '#dddddd'
set key below horizontal
set boxwidth 0.8
set xlabel 'rank'
set ylabel 'GB/s'
set xrange [-0.5:7.5]
set yrange [0:*]
set xtics 1 rotate by -30
$ranks9 << EOD
0 55.68 0 r0/19:00
1 55.693 0 r1/3b:00
2 55.706 0 r2/4c:00
3 55.719 0 r3/5d:00
4 55.732 0 r4/9b:00
5 55.745 0 r5/bb:00
6 55.758 0 r6/cb:00
7 55.771 0 r7/db:00
EOD
plot $ranks9 using 1:($3 == 0 ? $2 : NaN):xtic(4) with boxes lc rgb '#4e79a7' title 'rank', \
  55.7255 with lines dt 2 lw 2 lc rgb '#333333' title 'mean 55.73'

reset
set output 'plot-10-bw.svg'
set title 'allreduce float sum cuda: bandwidth vs message size'
set style fill solid 0.85 noborder
set grid ytics lc rgb '#dddddd'
set key below horizontal
set logscale x 2
set logscale y
set format x '%.0b%B'
set xlabel 'message size (bytes)'
set ylabel 'GB/s'
$bw10o << EOD
8 0.0003999995429 0.0006999992
1024 0.05119251127 0.08958689472
65536 3.246406217 5.681210881
1048576 45.59832696 79.79707218
16777216 246.9601824 432.1803192
1073741824 347.7330386 608.5328175
EOD
$bw10i << EOD
8 0.0003999995429 0.0006999992
1024 0.05119251127 0.08958689472
65536 3.246406217 5.681210881
1048576 45.59832696 79.79707218
16777216 246.9601824 432.1803192
1073741824 347.7330386 608.5328175
EOD
plot $bw10o using 1:3 with linespoints dt 1 lc rgb '#f28e2b' title 'busbw out-of-place', \
  $bw10o using 1:2 with linespoints dt 1 lc rgb '#4e79a7' title 'algbw out-of-place', \
  $bw10i using 1:3 with linespoints dt 2 lc rgb '#f28e2b' title 'busbw in-place', \
  $bw10i using 1:2 with linespoints dt 2 lc rgb '#4e79a7' title 'algbw in-place'

reset
set output 'plot-11-bw.svg'
set title 'allgather float cuda: bandwidth vs message size'
set style fill solid 0.85 noborder
set grid ytics lc rgb '#dddddd'
set key below horizontal
set logscale x 2
set logscale y
set format x '%.0b%B'
set xlabel 'message size (bytes)'
set ylabel 'GB/s'
$bw11o << EOD
8 0.0003999995429 0.0003499996
1024 0.05119251127 0.04479344736
65536 3.246406217 2.84060544
1048576 45.59832696 39.89853609
16777216 246.9601824 216.0901596
1073741824 347.7330386 304.2664088
EOD
$bw11i << EOD
8 0.0003999995429 0.0003499996
1024 0.05119251127 0.04479344736
65536 3.246406217 2.84060544
1048576 45.59832696 39.89853609
16777216 246.9601824 216.0901596
1073741824 347.7330386 304.2664088
EOD
plot $bw11o using 1:3 with linespoints dt 1 lc rgb '#f28e2b' title 'busbw out-of-place', \
  $bw11o using 1:2 with linespoints dt 1 lc rgb '#4e79a7' title 'algbw out-of-place', \
  $bw11i using 1:3 with linespoints dt 2 lc rgb '#f28e2b' title 'busbw in-place', \
  $bw11i using 1:2 with linespoints dt 2 lc rgb '#4e79a7' title 'algbw in-place'

reset
set output 'plot-12-bw.svg'
set title 'allreduce float sum cuda: bandwidth vs message size'
set style fill solid 0.85 noborder
set grid ytics lc rgb '#dddddd'
set key below horizontal
set logscale x 2
set logscale y
set format x '%.0b%B'
set xlabel 'message size (bytes)'
set ylabel 'GB/s'
$bw12o << EOD
8 0.000563 0.000986
64 0.004507 0.007887
512 0.036051 0.06309
4096 0.288137 0.50424
32768 2.287685 4.003448
262144 17.258553 30.202467
2097152 94.834619 165.960583
16777216 216.451582 378.790268
134217728 257.77294 451.102645
EOD
$bw12i << EOD
8 0.000571 0.001
64 0.004571 0.008
512 0.036566 0.063991
4096 0.292252 0.511442
32768 2.320307 4.060537
262144 17.501762 30.628083
2097152 96.088584 168.155023
16777216 219.019269 383.283721
134217728 260.711909 456.24584
EOD
plot $bw12o using 1:3 with linespoints dt 1 lc rgb '#f28e2b' title 'busbw out-of-place', \
  $bw12o using 1:2 with linespoints dt 1 lc rgb '#4e79a7' title 'algbw out-of-place', \
  $bw12i using 1:3 with linespoints dt 2 lc rgb '#f28e2b' title 'busbw in-place', \
  $bw12i using 1:2 with linespoints dt 2 lc rgb '#4e79a7' title 'algbw in-place'

reset
set output 'plot-13-times.svg'
set title 'allreduce float sum cuda at 1073741824 B: time per rank'
set style fill solid 0.85 noborder
set grid ytics lc rgb '#dddddd'
set key below horizontal
set style fill empty
set boxwidth 0.6
set xlabel 'rank'
set ylabel 'microseconds'
set xrange [-0.5:7.5]
set yrange [0:*]
set xtics 1
$t13 << EOD
0 3055.771036 3086.63741 3117.503785 3148.370159 0.5518745282
1 3077.759463 3108.847943 3139.936422 3171.024902 2.141491344
2 3049.040887 3079.83928 3110.637672 3141.436065 2.077466598
3 3069.314498 3100.317674 3131.320851 3162.324028 2.800210926
4 3063.78511 3094.732434 3125.679758 3156.627083 2.262774954
5 3046.297312 3077.067992 3107.838672 3138.609352 2.154692904
6 3043.025536 3073.763167 3104.500799 3135.238431 1553.916891
7 3072.427783 3103.462407 3134.497031 3165.531655 1.81639968
EOD
plot $t13 using 1:3:2:5:4 with candlesticks whiskerbars lc rgb '#4e79a7' title 'min, median to p99, max', \
  $t13 using 1:3:3:3:3 with candlesticks lc rgb '#1d2125' notitle, \
  $t13 using 1:6 with points pt 7 lc rgb '#e15759' title 'mean lateness'

reset
set output 'plot-14-times.svg'
set title 'allgather float cuda at 1073741824 B: time per rank'
set style fill solid 0.85 noborder
set grid ytics lc rgb '#dddddd'
set key below horizontal
set style fill empty
set boxwidth 0.6
set xlabel 'rank'
set ylabel 'microseconds'
set xrange [-0.5:7.5]
set yrange [0:*]
set xtics 1
$t14 << EOD
0 3058.707056 3089.603087 3120.499118 3151.395148 2.459045456
1 3077.557473 3108.643912 3139.730352 3170.816791 2.718020809
2 3036.92433 3067.600333 3098.276336 3128.95234 2.320634716
3 3082.739072 3113.877851 3145.01663 3176.155408 1.710115976
4 3037.806796 3068.491713 3099.17663 3129.861547 1.656670839
5 3061.900791 3092.829081 3123.757372 3154.685663 1.090421299
6 3051.776538 3082.602564 3113.42859 3144.254615 1553.916891
7 3046.604181 3077.37796 3108.15174 3138.92552 2.56117021
EOD
plot $t14 using 1:3:2:5:4 with candlesticks whiskerbars lc rgb '#4e79a7' title 'min, median to p99, max', \
  $t14 using 1:3:3:3:3 with candlesticks lc rgb '#1d2125' notitle, \
  $t14 using 1:6 with points pt 7 lc rgb '#e15759' title 'mean lateness'

reset
set output 'plot-15-p2p.svg'
set title 'P2P GB/s, node 0: size=268435456'
set style fill solid 0.85 noborder
set grid ytics lc rgb '#dddddd'
set key below horizontal
unset grid
set xrange [-0.5:7.5]
set yrange [7.5:-0.5]
set xlabel 'destination GPU'
set ylabel 'source GPU'
set palette defined (0 '#e15759', 0.5 '#f1ce63', 1 '#59a14f')
set cbrange [0:*]
set xtics ('GPU0 19:00' 0, 'GPU1 3b:00' 1, 'GPU2 4c:00' 2, 'GPU3 5d:00' 3, 'GPU4 9b:00' 4, 'GPU5 bb:00' 5, 'GPU6 cb:00' 6, 'GPU7 db:00' 7) rotate by -30
set ytics ('GPU0 19:00' 0, 'GPU1 3b:00' 1, 'GPU2 4c:00' 2, 'GPU3 5d:00' 3, 'GPU4 9b:00' 4, 'GPU5 bb:00' 5, 'GPU6 cb:00' 6, 'GPU7 db:00' 7)
$p15 << EOD
nan 380.9594388 380.1391262 380.7757573 380.8419309 380.6597174 380.7004078 380.4450587
380.9243078 nan 380.9712075 380.3823533 380.8027115 380.4329216 380.1647542 380.3254673
380.1263301 380.9088848 nan 380.9594241 380.1191867 380.6006791 380.4082241 380.11809
380.2954755 380.2482164 380.7495768 nan 380.004009 380.1898387 380.4387731 380.0210347
380.6275266 380.6056275 380.8353324 380.2066058 nan 380.2847816 380.5423394 380.2732257
380.5857381 380.2508822 380.6835272 380.7910907 380.8086546 nan 380.9736161 380.545377
380.4908093 380.8556977 380.7690674 380.5705446 380.3832564 380.2840474 nan 380.1081392
380.8075491 380.1180715 380.7472652 380.5452871 380.9649453 380.7610657 380.9735198 nan
EOD
plot $p15 matrix with image pixels notitle, \
  $p15 matrix using 1:2:($3 == $3 ? sprintf('%.0f', $3) : '') with labels font ',8' notitle

reset
set output 'plot-16-p2p.svg'
set title 'P2P GB/s, node 0: copy=read direction=uni mode=ce'
set style fill solid 0.85 noborder
set grid ytics lc rgb '#dddddd'
set key below horizontal
unset grid
set xrange [-0.5:7.5]
set yrange [7.5:-0.5]
set xlabel 'destination GPU'
set ylabel 'source GPU'
set palette defined (0 '#e15759', 0.5 '#f1ce63', 1 '#59a14f')
set cbrange [0:*]
set xtics ('GPU0 19:00' 0, 'GPU1 3b:00' 1, 'GPU2 4c:00' 2, 'GPU3 5d:00' 3, 'GPU4 9b:00' 4, 'GPU5 bb:00' 5, 'GPU6 cb:00' 6, 'GPU7 db:00' 7) rotate by -30
set ytics ('GPU0 19:00' 0, 'GPU1 3b:00' 1, 'GPU2 4c:00' 2, 'GPU3 5d:00' 3, 'GPU4 9b:00' 4, 'GPU5 bb:00' 5, 'GPU6 cb:00' 6, 'GPU7 db:00' 7)
$p16 << EOD
nan 389.41 389.27 389.48 389.34 389.2 389.41 389.27
389.27 nan 389.34 389.2 389.41 389.27 389.48 389.34
389.34 389.2 nan 389.27 389.48 389.34 152.3 389.41
389.41 389.27 389.48 nan 389.2 389.41 389.27 389.48
389.48 389.34 389.2 389.41 nan 389.48 389.34 389.2
389.2 389.41 389.27 389.48 389.34 nan 389.41 389.27
389.27 389.48 389.2 389.2 389.41 389.27 nan 389.34
389.34 389.2 389.41 389.27 389.48 389.34 389.2 nan
EOD
plot $p16 matrix with image pixels notitle, \
  $p16 matrix using 1:2:($3 == $3 ? sprintf('%.0f', $3) : '') with labels font ',8' notitle

reset
set output 'plot-17-p2p.svg'
set title 'P2P GB/s, node 0: copy=read direction=bidir mode=ce'
set style fill solid 0.85 noborder
set grid ytics lc rgb '#dddddd'
set key below horizontal
unset grid
set xrange [-0.5:7.5]
set yrange [7.5:-0.5]
set xlabel 'destination GPU'
set ylabel 'source GPU'
set palette defined (0 '#e15759', 0.5 '#f1ce63', 1 '#59a14f')
set cbrange [0:*]
set xtics ('GPU0 19:00' 0, 'GPU1 3b:00' 1, 'GPU2 4c:00' 2, 'GPU3 5d:00' 3, 'GPU4 9b:00' 4, 'GPU5 bb:00' 5, 'GPU6 cb:00' 6, 'GPU7 db:00' 7) rotate by -30
set ytics ('GPU0 19:00' 0, 'GPU1 3b:00' 1, 'GPU2 4c:00' 2, 'GPU3 5d:00' 3, 'GPU4 9b:00' 4, 'GPU5 bb:00' 5, 'GPU6 cb:00' 6, 'GPU7 db:00' 7)
$p17 << EOD
nan 734.07 734.14 734.21 734.28 734 734.07 734.14
734.21 nan 734 734.07 734.14 734.21 734.28 734
734.07 734.14 nan 734.28 734 734.07 734.14 734.21
734.28 734 734.07 nan 734.21 734.28 734 734.07
734.14 734.21 734.28 734 nan 734.14 734.21 734.28
734 734.07 734.14 734.21 734.28 nan 734.07 734.14
734.21 734.28 734 734.07 734.14 734.21 nan 734
734.07 734.14 734.21 734.28 734 734.07 734.14 nan
EOD
plot $p17 matrix with image pixels notitle, \
  $p17 matrix using 1:2:($3 == $3 ? sprintf('%.0f', $3) : '') with labels font ',8' notitle
