# zkbench plot: memory layers over time, proof completions marked.
#   gnuplot -c memory.gp DATADIR OUTBASE TITLE XMIN XMAX YMAX
# (explicit ranges: a one-sample run would make autoscaling warn)
# DATADIR/memory.dat: t_s rss je_allocated je_resident gpu_used tracked (GiB)
# DATADIR/proofs.dat: t_s ymax (one line per completed proof)
load ARG0[1:strstrt(ARG0, "memory.gp") - 1]."common.gp"
mem = ARG1."/memory.dat"
prf = ARG1."/proofs.dat"
set title ARG3 noenhanced
set xlabel "time (s)"
set ylabel "memory (GiB)"
set xrange [real(ARG4):real(ARG5)]
set yrange [0:real(ARG6)]
do for [fmt = 1:2] {
    if (fmt == 1) { @PNG } else { @SVG }
    plot prf using 1:2 with impulses lc rgb "#999999" dt 2 lw 1 title "proof done", \
         mem using 1:2 with lines lc rgb "#d62728" lw 2 title "RSS", \
         mem using 1:4 with lines lc rgb "#ff7f0e" title "je_resident" noenhanced, \
         mem using 1:3 with lines lc rgb "#1f77b4" title "je_allocated" noenhanced, \
         mem using 1:6 with lines lc rgb "#2ca02c" dt 3 title "tracked buffers", \
         mem using 1:5 with lines lc rgb "#9467bd" title "GPU used"
    unset output
}
