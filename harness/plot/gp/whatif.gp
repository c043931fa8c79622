# zkbench plot: what each change would buy (analyze's what-if entries), one
# horizontal bar each in analyze's rank (the pw gained, then the peak saved),
# the first at the top: the bar is the peak RSS the change saves at the
# run's pw, the text beside it that figure and the largest pw that then fits,
# and under that the switch that makes the change (or why none does).
# Changes the prover cannot make (model results only) are hatched.
# DATADIR/whatif.dat (changes a switch makes), whatif_model.dat (model only),
#   tab-separated: rank saved(in `unit`) label_x "change" "beside the bar"
#   "what makes it" (the second line beside the bar)
# vars.gp: title1 title2 unit lm rm (the plot's edges, screen fractions) xlo xhi n has_made has_model made_label
#   model_label. Only elements with data are drawn: gnuplot's warnings count as errors.
load ARG0[1:strstrt(ARG0, "whatif.gp") - 1]."common.gp"
load ARG1."/vars.gp"
made = ARG1."/whatif.dat"
model = ARG1."/whatif_model.dat"
set encoding utf8
set datafile separator "\t"
set title title1."\n".title2
set key outside below center vertical box opaque
# the axis is named in the title: the legend under the plot takes the room
unset xlabel
set format x "%g ".unit
set xrange [xlo:xhi]
set lmargin at screen lm
set rmargin at screen rm
# rank 1 at the top
set yrange [n + 0.6:0.4]
set ytics scale 0
set grid noytics
set offsets 0, 0, 0, 0
cmd = "plot "
sep = ""
if (has_made) {
    cmd = cmd . "made using 2:1:(0):2:($1 - 0.32):($1 + 0.32):ytic(4) with boxxyerror lc rgb '#1f77b4' fs solid 0.85 noborder title made_label, "
    cmd = cmd . "made using 3:($1 - 0.14):5 with labels left offset 0.8, 0 notitle, "
    cmd = cmd . "made using 3:($1 + 0.14):6 with labels left offset 0.8, 0 tc rgb '#444444' notitle"
    sep = ", "
}
if (has_model) {
    cmd = cmd . sep . "model using 2:1:(0):2:($1 - 0.32):($1 + 0.32):ytic(4) with boxxyerror lc rgb '#7f7f7f' fs pattern 4 border rgb '#000000' title model_label, "
    cmd = cmd . "model using 3:($1 - 0.14):5 with labels left offset 0.8, 0 notitle, "
    cmd = cmd . "model using 3:($1 + 0.14):6 with labels left offset 0.8, 0 tc rgb '#444444' notitle"
}
do for [fmt = 1:2] {
    if (fmt == 1) { @PNG } else { @SVG }
    eval cmd
    unset output
}
