// Package display draws what sparknet-shell shows besides plain values:
// tables, sparklines, line charts, and the progress of a training run. It
// is part of the shell layer; the numeric packages below it know nothing
// of it. Everything here is non-generic, so scripts in the shell call it
// directly.
//
// # Tables
//
// A Table is drawn with box lines in a terminal and as Markdown in a
// notebook report. WeightTable, NetTable and SummaryTable tabulate
// sparknet's values; the shell uses them when it echoes a weight
// collection or a net:
//
//	t := display.NewTable("round", "loss")
//	t.Add(1, 2.3026)
//	fmt.Print(t)
//
// # Figures
//
// A Figure is a line chart. PNG and Save draw it with gonum.org/v1/plot;
// String draws each series as a sparkline:
//
//	f := display.NewFigure("loss").Line("train", losses)
//	f.Save("loss.png")
//	display.Show(f) // sparklines in a terminal, the PNG in a notebook report
//
// # Training progress
//
// Trainers emit their own events; adapters turn them into Events, which
// Observers receive. Progress draws a live bar on a terminal and one line
// per round on a pipe; History records the curves; Training does both:
//
//	tr := display.TrackSolver(solver, 500, 50) // 10 rounds of 50 iterations
//	solver.Step(ctx, 500)
//	tr.Figure().Save("curves.png")
//
// # Hooks
//
// Show and Output reach the running shell: the shell installs them with
// SetShow and SetOutput, so a script's display.Show(v) looks like an
// echoed result and progress bars write where the shell writes.
package display
