# zkbench plot: live bytes of tracked buffers stacked by kind, host kinds
# above, device (gpu_*) kinds below; each kind has its fixed colour. A panel
# with no kind (the device panel of a CPU run) is not drawn.
# DATADIR/kinds_host.dat, kinds_dev.dat: t_s, then the running sums of the
#   panel's kinds in its unit (column k+1 = kinds 1..k stacked)
# vars.gp: title xlo xhi; for each panel P in host, dev: P_n P_names P_colors
#   (words, in stacking order) P_unit P_max (P_n 0: the panel is not drawn)
load ARG0[1:strstrt(ARG0, "kinds.gp") - 1]."common.gp"
load ARG1."/vars.gp"
set xrange [xlo:xhi]
set style fill solid 0.85 noborder
set lmargin at screen 0.08
set rmargin at screen 0.80
# the panels drawn: 1 host, 2 device, those with kinds
panels = (host_n > 0 ? "1" : "") . (dev_n > 0 ? " 2" : "")
np = words(panels)
do for [fmt = 1:2] {
    if (fmt == 1) { @PNG } else { @SVG }
    set multiplot layout np, 1 title title
    do for [w = 1:np] {
        panel = int(word(panels, w))
        dat = ARG1 . (panel == 1 ? "/kinds_host.dat" : "/kinds_dev.dat")
        n = panel == 1 ? host_n : dev_n
        names = panel == 1 ? host_names : dev_names
        colors = panel == 1 ? host_colors : dev_colors
        set title (panel == 1 ? "host memory: live tracked bytes by kind" : "device memory: live tracked bytes by kind")
        set xlabel (w == np ? "time (s)" : "")
        set ylabel "live bytes (stacked)"
        set format y "%g ".(panel == 1 ? host_unit : dev_unit)
        set yrange [0:(panel == 1 ? host_max : dev_max)]
        plot for [k = n:1:-1] dat using 1:(column(k + 1)) with filledcurves x1 lc rgb word(colors, k) title word(names, k)
    }
    unset multiplot
    unset output
}
