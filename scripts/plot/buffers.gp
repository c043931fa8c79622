# zkbench plot: buffer lifetimes, one horizontal bar per buffer, coloured by kind.
#   gnuplot -c buffers.gp DATADIR OUTBASE TITLE KINDS
# DATADIR/buffers.dat: t_alloc_s t_free_s row kind_index (1-based), one line per buffer
# KINDS: the kind names, space separated, in kind_index order.
load ARG0[1:strstrt(ARG0, "buffers.gp") - 1]."common.gp"
dat = ARG1."/buffers.dat"
kinds = ARG4
set title ARG3 noenhanced
set xlabel "time (s)"
set ylabel "buffer (by allocation time)"
set yrange [*:*] reverse
set ytics format ""
do for [fmt = 1:2] {
    if (fmt == 1) { @PNG } else { @SVG }
    plot dat using 1:3:($2 - $1):(0):4 with vectors nohead lw 2 lc variable notitle, \
         for [k = 1:words(kinds)] NaN with lines lw 4 lc k title word(kinds, k) noenhanced
    unset output
}
