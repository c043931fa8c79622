# zkbench plot: buffer lifetimes. One row per buffer, in order of allocation
# (the left axis is a rank, not bytes), a bar from allocation to free,
# coloured by kind (batch) or allocation site (watch); never-freed buffers
# are hatched and run to the end. The bytes are the line on the right axis:
# the live bytes of these buffers, which is what they held at each moment.
# DATADIR/buffers.dat (freed), buffers_nf.dat (never freed):
#   t_alloc_s t_end_s y0 y1 rgb   (y: the row, rgb as an integer 0xRRGGBB)
# DATADIR/live.dat: t_s live (in `unit`)
# vars.gp: title unit xlo xhi rows y2max names colors (words, legend order;
#   only kinds with a bar drawn) has_freed has_nf nf_label live_label
load ARG0[1:strstrt(ARG0, "buffers.gp") - 1]."common.gp"
load ARG1."/vars.gp"
freed = ARG1."/buffers.dat"
nf = ARG1."/buffers_nf.dat"
live = ARG1."/live.dat"
set title title
# the legend under the plot (a run has up to 14 kinds), seconds on the ticks
set key outside below center horizontal box opaque
unset xlabel
set format x "%g s"
set ylabel "buffers, one row each, in order of allocation"
set y2label "live bytes"
set format y2 "%g ".unit
set ytics nomirror
set y2tics
set xrange [xlo:xhi]
set yrange [0:rows]
set y2range [0:y2max]
cmd = "plot "
sep = ""
# each bar also as a 1-pixel line, so thousands of rows thinner than a
# pixel still show
if (has_freed) {
    cmd = cmd . "freed using 1:3:1:2:3:4:5 with boxxyerror lc rgb variable fs solid 0.85 noborder notitle, "
    cmd = cmd . "freed using 1:(($3 + $4) / 2):($2 - $1):(0):5 with vectors nohead lc rgb variable lw 0.7 notitle"
    sep = ", "
}
if (has_nf) {
    cmd = cmd . sep . "nf using 1:3:1:2:3:4:5 with boxxyerror lc rgb variable fs pattern 4 border rgb '#000000' notitle"
    sep = ", "
}
cmd = cmd . sep . "live using 1:2 axes x1y2 with lines lc rgb '#000000' lw 2 title live_label"
cmd = cmd . ", for [k = 1:words(names)] keyentry with boxes lc rgb word(colors, k) fs solid 0.85 title word(names, k)"
if (has_nf) {
    cmd = cmd . ", keyentry with boxes lc rgb '#444444' fs pattern 4 border rgb '#000000' title nf_label"
}
do for [fmt = 1:2] {
    if (fmt == 1) { @PNG } else { @SVG }
    eval cmd
    unset output
}
