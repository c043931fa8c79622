# zkbench plot: memory of a watched process over time, marks as vertical lines.
#   gnuplot -c watch.gp DATADIR OUTBASE TITLE XMIN XMAX YMAX LAYERS HAS_MARKS
# DATADIR/memory.dat: t_s rss anon file cgroup gpu tracked (GiB; NaN where not recorded)
# DATADIR/marks.dat: t_s (one line per mark: proof boundaries, phases)
# LAYERS: which of rss anon file cg gpu tracked have data (space separated);
# only those are drawn, since gnuplot's warnings count as errors.
load ARG0[1:strstrt(ARG0, "watch.gp") - 1]."common.gp"
mem = ARG1."/memory.dat"
marks = ARG1."/marks.dat"
layers = ARG7
set title ARG3 noenhanced
set xlabel "time (s)"
set ylabel "memory (GiB)"
set xrange [real(ARG4):real(ARG5)]
set yrange [0:real(ARG6)]
ymark = real(ARG6) / 1.05
has(w) = strstrt(" ".layers." ", " ".w." ") > 0
cmd = "plot "
sep = ""
if (ARG8 eq "1") {
    cmd = cmd . sprintf("marks using 1:(%g) with impulses lc rgb '#999999' dt 2 lw 1 title 'mark'", ymark)
    sep = ", "
}
if (has("rss")) { cmd = cmd . sep . "mem using 1:2 with lines lc rgb '#d62728' lw 2 title 'RSS'"; sep = ", " }
if (has("anon")) { cmd = cmd . sep . "mem using 1:3 with lines lc rgb '#ff7f0e' title 'RssAnon'"; sep = ", " }
if (has("file")) { cmd = cmd . sep . "mem using 1:4 with lines lc rgb '#1f77b4' title 'RssFile'"; sep = ", " }
if (has("cg")) { cmd = cmd . sep . "mem using 1:5 with lines lc rgb '#8c564b' dt 4 title 'cgroup memory.current'"; sep = ", " }
if (has("gpu")) { cmd = cmd . sep . "mem using 1:6 with lines lc rgb '#9467bd' title 'GPU used'"; sep = ", " }
if (has("tracked")) { cmd = cmd . sep . "mem using 1:7 with lines lc rgb '#2ca02c' dt 3 title 'traced allocations'"; sep = ", " }
do for [fmt = 1:2] {
    if (fmt == 1) { @PNG } else { @SVG }
    eval cmd
    unset output
}
