# zkbench plot: buffer lifetimes. One bar per buffer from allocation to free,
# stacked by allocation time; a bar's height is its bytes, so the y axis
# reads bytes allocated so far. Coloured by kind (batch) or allocation site
# (watch); never-freed buffers are hatched and run to the end.
# DATADIR/buffers.dat (freed), buffers_nf.dat (never freed):
#   t_alloc_s t_end_s y0 y1 rgb   (y in `unit`, rgb as an integer 0xRRGGBB)
# vars.gp: title unit xlo xhi ymax names colors (words, legend order)
#   has_freed has_nf nf_label
load ARG0[1:strstrt(ARG0, "buffers.gp") - 1]."common.gp"
load ARG1."/vars.gp"
freed = ARG1."/buffers.dat"
nf = ARG1."/buffers_nf.dat"
set title title
set xlabel "time (s)"
set ylabel "buffers by allocation time (bar height: bytes)"
set format y "%g ".unit
set xrange [xlo:xhi]
set yrange [0:ymax]
cmd = "plot "
sep = ""
if (has_freed) {
    cmd = cmd . "freed using 1:3:1:2:3:4:5 with boxxyerror lc rgb variable fs solid 0.85 border notitle"
    sep = ", "
}
if (has_nf) {
    cmd = cmd . sep . "nf using 1:3:1:2:3:4:5 with boxxyerror lc rgb variable fs pattern 4 border rgb '#000000' notitle"
    sep = ", "
}
cmd = cmd . sep . "for [k = 1:words(names)] keyentry with boxes lc rgb word(colors, k) fs solid 0.85 title word(names, k)"
if (has_nf) {
    cmd = cmd . ", keyentry with boxes lc rgb '#444444' fs pattern 4 border rgb '#000000' title nf_label"
}
do for [fmt = 1:2] {
    if (fmt == 1) { @PNG } else { @SVG }
    eval cmd
    unset output
}
