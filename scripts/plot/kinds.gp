# zkbench plot: live bytes of tracked buffers, stacked by kind.
#   gnuplot -c kinds.gp DATADIR OUTBASE TITLE NKINDS XMIN XMAX YMAX
# DATADIR/kinds.dat: header "t_s kind1 kind2 ...", then t_s and the running
# (cumulative) sums in GiB: column k+1 = kinds 1..k stacked.
load ARG0[1:strstrt(ARG0, "kinds.gp") - 1]."common.gp"
dat = ARG1."/kinds.dat"
n = int(ARG4)
set title ARG3 noenhanced
set xlabel "time (s)"
set ylabel "live tracked bytes (GiB, stacked)"
set xrange [real(ARG5):real(ARG6)]
set yrange [0:real(ARG7)]
set style fill solid 0.85 noborder
do for [fmt = 1:2] {
    if (fmt == 1) { @PNG } else { @SVG }
    plot for [k = n:1:-1] dat using 1:(column(k + 1)) with filledcurves x1 lc k title columnheader(k + 1) noenhanced
    unset output
}
