# zkbench plot: peak RSS against pw for a sweep, with the model, its interval
# and the memory limit.
#   gnuplot -c sweep.gp DATADIR OUTBASE TITLE LIMIT_GIB LIMIT_LABEL HAS_MODEL HAS_KILLED XMIN XMAX
# DATADIR/sweep.dat: pw peak_gib predicted_gib s_per_proof (completed runs)
# DATADIR/killed.dat: the same for OOM-killed runs (HAS_KILLED "1")
# DATADIR/model.dat: pw predicted_gib low_gib high_gib (HAS_MODEL "1")
# LIMIT_GIB: "" when unknown. Only elements with data are drawn: gnuplot's
# warnings count as errors.
load ARG0[1:strstrt(ARG0, "sweep.gp") - 1]."common.gp"
dat = ARG1."/sweep.dat"
killed = ARG1."/killed.dat"
model = ARG1."/model.dat"
lim = ARG4
limlabel = ARG5
set title ARG3 noenhanced
set xlabel "pw (synthesis workers: partitions synthesized in parallel)"
set ylabel "peak RSS (GiB)"
set yrange [0:*]
set xtics 1
set xrange [real(ARG8):real(ARG9)]
set key inside bottom right box opaque
# the model's band first, so the measured points are drawn over it
cmd = "plot "
if (ARG6 eq "1") {
    cmd = cmd . "model using 1:3:4 with filledcurves lc rgb '#aec7e8' fs transparent solid 0.5 title 'model: 95% interval', "
    cmd = cmd . "model using 1:2 with lines lc rgb '#1f77b4' lw 2 title 'model: predicted peak', "
}
cmd = cmd . "dat using 1:2 with points pt 7 ps 1.5 lc rgb '#2ca02c' title 'measured peak (completed)'"
if (ARG7 eq "1") {
    cmd = cmd . ", killed using 1:2 with points pt 2 ps 2 lw 2 lc rgb '#d62728' title 'OOM-killed (peak reached)'"
}
if (strlen(lim) > 0) {
    cmd = cmd . sprintf(", %s with lines lc rgb '#000000' dt 2 lw 2 title '%s %.3f GiB'", lim, limlabel, real(lim))
}
do for [fmt = 1:2] {
    if (fmt == 1) { @PNG } else { @SVG }
    eval cmd
    unset output
}
