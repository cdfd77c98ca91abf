// Package tool implements the sparknet command, a Caffe-style command line:
//
//	sparknet summary --model=lenet_train_test.prototxt [--phase=TRAIN] [--input-shape=data=64,1,28,28]
//	sparknet upgrade --model=old.prototxt
//	sparknet train --solver=lenet_solver.prototxt --data=mnist=DIR [--weights=W | --snapshot=S] [--iterations=N]
//	sparknet test --model=lenet_train_test.prototxt --weights=lenet_iter_10000.caffemodel --iterations=100 --data=mnist=DIR
//	sparknet time --model=lenet_train_test.prototxt --iterations=50 --input-shape=data=64,1,28,28
//	sparknet predict --model=deploy.prototxt --weights=W.caffemodel --input=x.npy --output=y.npy [--transform]
//	sparknet mean --source=examples/cifar10/cifar10_train_lmdb --output=mean.binaryproto
//	sparknet device_query
//
// Data layers read the LMDB and LevelDB databases that Caffe's convert
// tools write. --data=KIND=DIR instead points every Data layer at a data
// set of a kind with two splits (mnist: a folder of MNIST IDX files;
// cifar10: CIFAR-10 binary batches): TRAIN-phase layers read its training
// set, TEST-phase layers its test set, so Caffe's example nets also run
// without their databases.
//
// Without --phase, summary shows every state the net's include and exclude
// rules tell apart (TRAIN, TEST, and TEST with each stage the rules name).
//
// Flags are spelled like those of Caffe's caffe tool (--model, --weights,
// --phase, --level, --stage). Main is the whole command, so it can be run
// from tests and embedded in other programs; cmd/sparknet only calls it.
package tool

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// command is one subcommand of sparknet.
type command struct {
	name    string
	summary string // one line, for the command list
	usage   string // the arguments, for "sparknet help NAME"
	// run executes the command; flags is ready to parse args and writes
	// its errors to stderr.
	run func(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) error
	// main, for a command added with Register, is the whole command: it
	// parses its own flags and returns the exit status.
	main func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]*command{}

// register adds a subcommand; a duplicate name is a programming error.
func register(c *command) {
	if commands[c.name] != nil {
		panic("tool: command " + c.name + " registered twice")
	}
	commands[c.name] = c
}

// Register adds a command whose implementation lives outside the Caffe
// tool, such as "ui" (the history server of package ui, which the
// command registers in its main): main gets the arguments after the
// command's name and returns the exit status. A name taken already is
// an error.
func Register(name, summary, usage string, main func(args []string, stdout, stderr io.Writer) int) error {
	if name == "" || main == nil || commands[name] != nil {
		return fmt.Errorf("tool: Register(%q): the name must be new and non-empty, and main non-nil", name)
	}
	commands[name] = &command{name: name, summary: summary, usage: usage, main: main}
	return nil
}

// errUsage marks errors in how the command was called; Main prints the
// usage and exits with status 2 for them.
var errUsage = errors.New("usage")

func usageErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errUsage}, args...)...)
}

// Main runs the sparknet command with args (without the program name),
// writing results to stdout and messages to stderr, and returns the exit
// status: 0 on success, 1 when the command failed, 2 for a usage error.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printUsage(stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if c := commands[args[1]]; c != nil {
				printFlags(c, stdout)
				return 0
			}
			fmt.Fprintf(stderr, "sparknet: unknown command %q\n", args[1])
			printUsage(stderr)
			return 2
		}
		printUsage(stdout)
		return 0
	}
	c := commands[name]
	if c == nil {
		fmt.Fprintf(stderr, "sparknet: unknown command %q\n", name)
		printUsage(stderr)
		return 2
	}
	if c.main != nil {
		return c.main(args[1:], stdout, stderr)
	}
	if err := kernel.ImplementationError(); err != nil {
		fmt.Fprintf(stderr, "sparknet: %v; running the %s kernels\n", err, kernel.Implementation())
	}
	fs := flag.NewFlagSet("sparknet "+c.name, flag.ContinueOnError)
	// Errors in the flags are reported in one line below; -h prints the
	// flags.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := runCommand(c, fs, args[1:], stdout, stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		printCommandUsage(stderr, c)
		fs.SetOutput(stderr)
		fs.PrintDefaults()
		return 0
	case errors.Is(err, errUsage):
		msg := strings.TrimPrefix(err.Error(), errUsage.Error()+": ")
		fmt.Fprintf(stderr, "sparknet %s: %s (sparknet help %s lists the flags)\n", c.name, msg, c.name)
		return 2
	}
	fmt.Fprintf(stderr, "sparknet %s: %s\n", c.name, oneLine(err.Error()))
	return 1
}

// printFlags prints a command's usage and flags.
func printFlags(c *command, w io.Writer) {
	fs := flag.NewFlagSet("sparknet "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	runCommand(c, fs, []string{"-h"}, io.Discard, io.Discard)
	printCommandUsage(w, c)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// runCommand runs a command, turning a panic (a bug, never bad input) into an
// error, so that no command ends in a stack trace.
func runCommand(c *command, fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v; please report it with the command line that caused it", r)
		}
	}()
	return c.run(fs, args, stdout, stderr)
}

// oneLine keeps an error message to one line.
func oneLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return strings.ReplaceAll(s, "\n", "; ")
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: sparknet <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, `Run "sparknet help <command>" for a command's flags.`)
}

func printCommandUsage(w io.Writer, c *command) {
	fmt.Fprintf(w, "usage: sparknet %s %s\n", c.name, c.usage)
	fmt.Fprintf(w, "%s\n", c.summary)
}

// parseFlags parses args, refusing positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageErrorf("%s", strings.Replace(err.Error(), " -", " --", 1))
	}
	if fs.NArg() > 0 {
		return usageErrorf("unexpected argument %q; flags are written --name=value", fs.Arg(0))
	}
	return nil
}
