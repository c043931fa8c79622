# zkbench plot: peak RSS against pw for a sweep, with the model, its interval
# and the memory limit.
#   gnuplot -c sweep.gp DATADIR OUTBASE TITLE LIMIT_GIB LIMIT_LABEL
# DATADIR/sweep.dat: pw peak_gib predicted_gib s_per_proof killed(0|1)
# DATADIR/model.dat: pw predicted_gib low_gib high_gib (may be empty)
# LIMIT_GIB: "" when unknown
load ARG0[1:strstrt(ARG0, "sweep.gp") - 1]."common.gp"
dat = ARG1."/sweep.dat"
model = ARG1."/model.dat"
lim = ARG4
limlabel = ARG5
stats model using 1 nooutput
has_model = STATS_records > 0
set title ARG3 noenhanced
set xlabel "pw (synthesis workers: partitions synthesized in parallel)"
set ylabel "peak RSS (GiB)"
set yrange [0:*]
set xtics 1
set offsets 0.5, 0.5, 0, 0
set key top left
do for [fmt = 1:2] {
    if (fmt == 1) { @PNG } else { @SVG }
    plot (has_model ? model : dat) using 1:(has_model ? $3 : 1/0):(has_model ? $4 : 1/0) \
             with filledcurves lc rgb "#aec7e8" fs transparent solid 0.5 title (has_model ? "model: 95% interval" : ""), \
         (has_model ? model : dat) using 1:(has_model ? $2 : 1/0) with lines lc rgb "#1f77b4" lw 2 \
             title (has_model ? "model: predicted peak" : ""), \
         dat using 1:($5 == 0 ? $2 : 1/0) with points pt 7 ps 1.5 lc rgb "#2ca02c" title "measured peak (completed)", \
         dat using 1:($5 == 1 ? $2 : 1/0) with points pt 2 ps 2 lw 2 lc rgb "#d62728" title "OOM-killed (peak reached)", \
         (strlen(lim) > 0 ? real(lim) : 1/0) with lines lc rgb "#000000" dt 2 lw 2 \
             title (strlen(lim) > 0 ? sprintf("%s %.2f GiB", limlabel, real(lim)) : "")
    unset output
}
