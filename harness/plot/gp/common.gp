# Shared by the zkbench plot scripts (embedded in the binary; zkbench writes
# them into a temporary folder and runs gnuplot -c NAME.gp DATADIR PNG SVG,
# the paths of the two outputs).
# Each script then loads DATADIR/vars.gp, the figure's parameters (titles,
# ranges, labels; ARG1 is empty inside a loaded file), and draws the figure
# twice:
#   @PNG  sets the PNG terminal and output ARG2
#   @SVG  sets the SVG terminal and output ARG3
# Text is noenhanced: run names, kinds and sites hold underscores.
PNG = 'set terminal pngcairo size 1400,800 noenhanced font "sans,11" linewidth 1.5; set output ARG2'
SVG = 'set terminal svg size 1400,800 dynamic noenhanced font "sans,11" background "white" linewidth 1.5; set output ARG3'
set grid lc rgb "#dddddd"
set key outside right top box opaque
set border lw 1
