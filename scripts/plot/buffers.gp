# zkbench plot: buffer lifetimes, one horizontal bar per buffer, coloured by
# kind (batch) or allocation site (watch).
#   gnuplot -c buffers.gp DATADIR OUTBASE TITLE KINDS XMIN XMAX ROWS
# DATADIR/buffers.dat: t_alloc_s t_free_s row kind_index (1-based), one line per buffer
# KINDS: the kind names, space separated, in kind_index order ("-": no key entry).
load ARG0[1:strstrt(ARG0, "buffers.gp") - 1]."common.gp"
dat = ARG1."/buffers.dat"
kinds = ARG4
set title ARG3 noenhanced
set xlabel "time (s)"
set ylabel "buffer (by allocation time)"
set xrange [real(ARG5):real(ARG6)]
set yrange [int(ARG7) + 0.5:0.5]
set ytics format ""
do for [fmt = 1:2] {
    if (fmt == 1) { @PNG } else { @SVG }
    plot dat using 1:3:($2 - $1):(0):4 with vectors nohead lw 2 lc variable notitle, \
         for [k = 1:words(kinds)] NaN with lines lw 4 lc k title (word(kinds, k) eq "-" ? "" : word(kinds, k)) noenhanced
    unset output
}
