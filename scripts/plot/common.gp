# Shared by the zkbench plot scripts: output both PNG and SVG of the same
# figure. Usage inside a script:  do for [fmt=1:2] { load ARG0dir."common.gp" ... }
# is not possible in gnuplot 5.4, so each script calls the two macros below.
#   @PNG  sets the PNG terminal and output ARG2.".png"
#   @SVG  sets the SVG terminal and output ARG2.".svg"
PNG = 'set terminal pngcairo size 1400,800 enhanced font "sans,11" linewidth 1.5; set output ARG2.".png"'
SVG = 'set terminal svg size 1400,800 dynamic enhanced font "sans,11" background "white" linewidth 1.5; set output ARG2.".svg"'
set grid lc rgb "#dddddd"
set key outside right top box opaque
set border lw 1
