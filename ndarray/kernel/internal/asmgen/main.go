// Command asmgen generates the amd64 assembly of package kernel with avo:
// the SGEMM microkernels (AVX-512 and AVX2+FMA), the vector primitives and
// the layer kernels (row copies, ReLU, pooling rows, im2col and col2im
// rows, packing) and the direct convolution, for AVX-512 and for AVX2,
// and the FMA peak probes.
//
// Run it from the kernel package directory (go generate does):
//
//	go run ./internal/asmgen -dir .
//
// For every output it writes NAME_amd64.s and the Go declarations
// NAME_stub_amd64.go. The files carry the build constraint !noasm, so the
// noasm build tag selects the pure-Go code instead.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/pass"
	"github.com/mmcloughlin/avo/printer"
)

// generator is the command line that go:generate runs; it is written into the
// header of every output so that the files do not depend on where they were
// generated.
var generator = []string{"go", "run", "./internal/asmgen"}

// output is one generated assembly file and its stubs.
type output struct {
	name  string
	build func(*build.Context)
}

var outputs = []output{
	{"sgemm", buildGemm},
	{"vec", buildVec},
	{"nn", buildNN},
	{"nn256", buildNN256},
	{"peak", buildPeak},
	{"direct", buildDirect},
	{"directgrad", buildDirectGrad},
	{"fc", buildFC},
	{"poolplane", buildPoolPlane},
	{"lrn", buildLRN},
	{"dpool", buildDirectPool},
	{"convrows", buildConvRows},
	{"dgradrow", buildDirectGradRow},
	{"dgradwin", buildDirectGradWin},
	{"dpool2", buildDirectPool2},
	{"im2col256", buildIm2col256},
	{"pool22", buildPool22},
	{"stream", buildStream},
	{"deint4", buildDeint4},
	{"dstream", buildDirectStream},
	{"relusigns", buildReluSigns},
	{"planesums", buildPlaneSums},
	{"avesmall", buildAveSmall},
	{"rowgradt", buildRowGradT},
	{"lcg", buildLCG},
	{"lrn512", buildLRN512},
	{"lanesums", buildLaneSums},
	{"convflat", buildConvFlat},
	{"exp", buildExp},
	{"winograd", buildWinograd},
	{"winograd5", buildWinograd5},
}

func main() {
	dir := flag.String("dir", ".", "directory to write the generated files into")
	flag.Parse()
	for _, o := range outputs {
		if err := generate(*dir, o); err != nil {
			fmt.Fprintf(os.Stderr, "asmgen: %s: %v\n", o.name, err)
			os.Exit(1)
		}
	}
}

func generate(dir string, o output) error {
	ctx := build.NewContext()
	ctx.ConstraintExpr("!noasm")
	o.build(ctx)

	asm, err := os.Create(filepath.Join(dir, o.name+"_amd64.s"))
	if err != nil {
		return err
	}
	defer asm.Close()
	stubs, err := os.Create(filepath.Join(dir, o.name+"_stub_amd64.go"))
	if err != nil {
		return err
	}
	defer stubs.Close()

	cfg := printer.Config{Argv: generator, Pkg: "kernel"}
	bc := &build.Config{
		ErrOut:    os.Stderr,
		MaxErrors: 10,
		Passes: []pass.Interface{
			pass.Compile,
			&pass.Output{Writer: nopCloser{asm}, Printer: printer.NewGoAsm(cfg)},
			&pass.Output{Writer: nopCloser{stubs}, Printer: printer.NewStubs(cfg)},
		},
	}
	if build.Main(bc, ctx) != 0 {
		return fmt.Errorf("avo reported errors")
	}
	if err := asm.Close(); err != nil {
		return err
	}
	return stubs.Close()
}

// nopCloser lets generate close the files itself and see the errors.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// paramAddr is the frame address of the named argument.
func paramAddr(c *build.Context, name string) operand.Mem {
	b, err := c.Param(name).Resolve()
	if err != nil {
		panic(fmt.Sprintf("asmgen: argument %s: %v", name, err))
	}
	return b.Addr
}
