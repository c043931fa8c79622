# zkbench plot: peak RSS against pw for a sweep, with the model and the RAM limit.
#   gnuplot -c sweep.gp DATADIR OUTBASE TITLE RAM_GIB
# DATADIR/sweep.dat: pw peak_gib predicted_gib s_per_proof; RAM_GIB: "" when unknown
load ARG0[1:strstrt(ARG0, "sweep.gp") - 1]."common.gp"
dat = ARG1."/sweep.dat"
ram = ARG4
set title ARG3 noenhanced
set xlabel "pw (partitions synthesized in parallel)"
set ylabel "peak RSS (GiB)"
set yrange [0:*]
set xtics 1
set offsets 0.5, 0.5, 0, 0
do for [fmt = 1:2] {
    if (fmt == 1) { @PNG } else { @SVG }
    if (strlen(ram) > 0) {
        plot dat using 1:3 with lines lc rgb "#1f77b4" lw 2 title "model: predicted peak", \
             dat using 1:2 with points pt 7 ps 1.5 lc rgb "#d62728" title "measured peak", \
             real(ram) with lines lc rgb "#000000" dt 2 lw 2 title sprintf("RAM %.1f GiB", real(ram))
    } else {
        plot dat using 1:3 with lines lc rgb "#1f77b4" lw 2 title "model: predicted peak", \
             dat using 1:2 with points pt 7 ps 1.5 lc rgb "#d62728" title "measured peak"
    }
    unset output
}
