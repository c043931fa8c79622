# zkbench plot: measured and predicted peak RSS (under a memory limit, the
# anonymous peak) against pw, with intervals,
# the model's curve and band, and the RAM or memory limit when known.
# DATADIR/sweep.dat: pw peak predicted low high (completed runs; NaN: none)
# DATADIR/killed.dat: the same for OOM-killed runs
# DATADIR/pred.dat: pw predicted low high (every run with a prediction)
# DATADIR/range.dat: pw min max of the measured peaks (pws run more than once)
# DATADIR/model.dat: pw predicted low high (sweep-model.csv)
# vars.gp: title ylab unit xlo xhi ymax has_pred has_killed has_range has_model
#   lim lim_on lim_label. Only elements with data are drawn: gnuplot's
#   warnings count as errors.
load ARG0[1:strstrt(ARG0, "sweep.gp") - 1]."common.gp"
load ARG1."/vars.gp"
dat = ARG1."/sweep.dat"
killed = ARG1."/killed.dat"
range = ARG1."/range.dat"
model = ARG1."/model.dat"
pred = ARG1."/pred.dat"
set title title
set xlabel "pw (synthesis workers: partitions synthesized in parallel)"
set ylabel ylab
set format y "%g ".unit
set yrange [0:ymax]
set xtics 1
set xrange [xlo:xhi]
# the model's band first, so the points are drawn over it
cmd = "plot "
if (has_model) {
    cmd = cmd . "model using 1:3:4 with filledcurves lc rgb '#aec7e8' fs transparent solid 0.5 title 'model: 95% interval', "
    cmd = cmd . "model using 1:2 with lines lc rgb '#1f77b4' lw 2 title 'model: predicted peak', "
}
if (has_pred) {
    cmd = cmd . "pred using 1:2:3:4 with yerrorbars pt 6 ps 1.8 lw 1.5 lc rgb '#1f77b4' title 'predicted peak (95% interval)', "
}
if (has_range) {
    cmd = cmd . "range using 1:2:2:3 with yerrorbars pt -1 lw 2 lc rgb '#2ca02c' title 'measured peak: range of repeated runs', "
}
cmd = cmd . "dat using 1:2 with points pt 7 ps 1.5 lc rgb '#2ca02c' title 'measured peak (completed)'"
if (has_killed) {
    cmd = cmd . ", killed using 1:2 with points pt 2 ps 2 lw 2 lc rgb '#d62728' title 'OOM-killed (peak reached)'"
}
if (lim == lim && lim_on) { cmd = cmd . ", lim with lines lc rgb '#000000' lw 2 title lim_label" }
# off the scale: a note, not a legend entry with a line sample for no line
if (lim == lim && !lim_on) { set label 2 lim_label at graph 0.99, 0.97 right front }
do for [fmt = 1:2] {
    if (fmt == 1) { @PNG } else { @SVG }
    eval cmd
    unset output
}
