# zkbench plot: memory over time (batch and watch runs), with the baseline,
# the RAM or memory limit, the leak trend, and proof completions or marks.
# The verdict is the title's second line.
# DATADIR/memory.dat: t_s rss rss_anon rss_file cg_current je_resident
#   je_allocated tracked gpu trend, in `unit` (NaN where not recorded)
# DATADIR/marks.dat: t_s, one line per proof completion or mark
# The legend names the layers as the report does (L0 tracked .. L3 process).
# vars.gp: title1 title2 unit xlo xhi ymax layers (which columns to draw:
#   rss anon file cg resident allocated tracked gpu trend) tracked_label
#   trend_label has_marks marks_label base base_label lim lim_label lim_on
#   sty ("lines", or "linespoints" for a run of one sample)
load ARG0[1:strstrt(ARG0, "memory.gp") - 1]."common.gp"
load ARG1."/vars.gp"
mem = ARG1."/memory.dat"
marks = ARG1."/marks.dat"
set title title1."\n".title2
# the legend under the plot, so the lines keep the figure's width
set key outside below center horizontal maxrows 3 box opaque
# seconds on the ticks: an x label would sit under the legend
unset xlabel
set format x "%g s"
set ylabel "memory"
set format y "%g ".unit
set xrange [xlo:xhi]
set yrange [0:ymax]
has(w) = strstrt(" ".layers." ", " ".w." ") > 0
cmd = "plot "
sep = ""
if (has_marks) {
    cmd = cmd . "marks using 1:(ymax) with impulses lc rgb '#999999' dt 2 lw 1 title marks_label"
    sep = ", "
}
if (has("rss")) { cmd = cmd . sep . "mem using 1:2 with ".sty." lc rgb '#d62728' lw 2 title 'L3 process: RSS'"; sep = ", " }
if (has("anon")) { cmd = cmd . sep . "mem using 1:3 with ".sty." lc rgb '#ff7f0e' title 'L3 RssAnon'"; sep = ", " }
if (has("file")) { cmd = cmd . sep . "mem using 1:4 with ".sty." lc rgb '#1f77b4' title 'L3 RssFile (mapped files)'"; sep = ", " }
if (has("cg")) { cmd = cmd . sep . "mem using 1:5 with ".sty." lc rgb '#8c564b' dt 4 title 'cgroup memory.current'"; sep = ", " }
if (has("resident")) { cmd = cmd . sep . "mem using 1:6 with ".sty." lc rgb '#ff7f0e' title 'L2 allocator: resident'"; sep = ", " }
if (has("allocated")) { cmd = cmd . sep . "mem using 1:7 with ".sty." lc rgb '#1f77b4' title 'L1 heap: allocated'"; sep = ", " }
if (has("tracked")) { cmd = cmd . sep . "mem using 1:8 with ".sty." lc rgb '#2ca02c' dt 3 title tracked_label"; sep = ", " }
if (has("gpu")) { cmd = cmd . sep . "mem using 1:9 with ".sty." lc rgb '#9467bd' title 'GPU: device used'"; sep = ", " }
if (has("trend")) { cmd = cmd . sep . "mem using 1:10 with ".sty." lc rgb '#e7298a' lw 2.5 title trend_label"; sep = ", " }
if (base == base) { cmd = cmd . sep . "base with lines lc rgb '#555555' dt 3 lw 1.5 title base_label"; sep = ", " }
# the limit: a line when it is on the scale, else a note in the corner
# (a legend entry has a line sample, and no such line is drawn)
if (lim == lim && lim_on) { cmd = cmd . sep . "lim with lines lc rgb '#000000' lw 2 title lim_label"; sep = ", " }
if (lim == lim && !lim_on) { set label 2 lim_label at graph 0.99, 0.97 right front }
do for [fmt = 1:2] {
    if (fmt == 1) { @PNG } else { @SVG }
    eval cmd
    unset output
}
