package tests

import (
	"bytes"
	"encoding/csv"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparknet-go/sparknet/data"
)

// TestPaperSpeedup runs the speedup study of examples/paper_speedup.go as
// a notebook at a tiny setting (K 1 and 2, τ 1 and 5, accuracy 0.9 within
// 200 iterations) and checks its tables, its CSV file and its heat maps.
func TestPaperSpeedup(t *testing.T) {
	if testing.Short() {
		t.Skip("trains LeNet for about 20 seconds")
	}
	if _, err := data.MNISTDir(); err != nil {
		t.Skip("MNIST files unavailable:", err)
	}
	dir := t.TempDir()
	outDir := filepath.Join(dir, "results")
	report := filepath.Join(dir, "speedup.md")
	for name, v := range map[string]string{
		"SPARKNET_SPEEDUP_K":      "1,2",
		"SPARKNET_SPEEDUP_TAU":    "1,5",
		"SPARKNET_SPEEDUP_TARGET": "0.9",
		"SPARKNET_SPEEDUP_BUDGET": "200",
		"SPARKNET_SPEEDUP_TEST":   "500",
		"SPARKNET_SPEEDUP_EVERY":  "50",
		"SPARKNET_SPEEDUP_OUT":    outDir,
	} {
		t.Setenv(name, v)
	}
	res := runShell(t, repoRoot, "", 4*time.Minute, "--master", "local[2]", "--notebook", filepath.Join("examples", "paper_speedup.go"), "--out", report)
	if res.code != 0 {
		t.Fatalf("exit status %d:\n%s", res.code, res.out)
	}
	text := readFile(t, report)
	if strings.Contains(text, "**Error**") {
		t.Fatalf("the report has an error:\n%s", text)
	}
	rest := text
	for _, want := range []string{
		"# SparkNet's speedup study", "small study: K [1 2], τ [1 5], target accuracy 0.9 on 500 test images",
		"C = ", "K=1 τ=1 ", "K=2 τ=5 ",
		"**iterations per worker to reach accuracy 0.9**", `| K \ τ | 1 `,
		"**speedup over the serial solver, S = 0**", "**speedup over the serial solver, S = C**",
		"**speedup over the serial solver, S = 10C**", "**speedup over the serial solver, S = 100C**",
		"paper_speedup.csv and ", "**measured wall time on 2 workers (local[2]), serial solver ", "raw speedup", "normalised speedup",
		"paper_speedup_measured.csv", "the small study took",
	} {
		i := strings.Index(rest, want)
		if i < 0 {
			t.Fatalf("the report lacks %q (after the earlier lines); report:\n%s", want, text)
		}
		rest = rest[i+len(want):]
	}
	checkSpeedupCSV(t, filepath.Join(outDir, "paper_speedup.csv"))
	checkMeasuredCSV(t, filepath.Join(outDir, "paper_speedup_measured.csv"))

	img, err := png.Decode(bytes.NewReader([]byte(readFile(t, filepath.Join(outDir, "paper_speedup.png")))))
	if err != nil {
		t.Fatal(err)
	}
	if size := img.Bounds().Size(); size.X != 960 || size.Y != 720 {
		t.Errorf("the heat maps are %v, want 960×720 (four panels of 480×360)", size)
	}
	// The accuracy curves, one figure per K, and the heat maps are beside
	// the report.
	if pngs, _ := filepath.Glob(filepath.Join(dir, "speedup-*.png")); len(pngs) != 3 {
		t.Errorf("%d figures beside the report, want 3 (2 curves, the heat maps): %v", len(pngs), pngs)
	}
	if !strings.Contains(text, "![SparkNet speedup on MNIST") {
		t.Errorf("the report does not show the heat maps:\n%s", text)
	}
}

// checkSpeedupCSV checks the study's CSV file against the model
// T = rounds·(τ + S/C)·C and speedup = T(serial)/T.
func checkSpeedupCSV(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if want := "K,tau,S_over_C,iterations,rounds,modeled_seconds,speedup"; len(rows) == 0 || strings.Join(rows[0], ",") != want {
		t.Fatalf("CSV header %v, want %s", rows[:min(len(rows), 1)], want)
	}
	if len(rows) != 1+2*2*4 {
		t.Fatalf("%d CSV rows, want 16 (K, τ and S 2×2×4) after the header", len(rows)-1)
	}
	type cell struct{ k, tau, s float64 }
	type values struct{ iters, rounds, seconds, speedup float64 }
	got := map[cell]values{}
	num := func(s string) float64 {
		if s == "" {
			return math.NaN()
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("CSV value %q: %v", s, err)
		}
		return v
	}
	for _, r := range rows[1:] {
		got[cell{num(r[0]), num(r[1]), num(r[2])}] = values{num(r[3]), num(r[4]), num(r[5]), num(r[6])}
	}
	serial, ok := got[cell{1, 1, 0}]
	if !ok || math.IsNaN(serial.iters) {
		t.Fatalf("the serial run (K 1, τ 1) did not reach 0.9 in 200 iterations: %v", serial)
	}
	// C·(τ + S/C)·rounds from the serial run's numbers.
	c := serial.seconds / serial.iters
	for key, v := range got {
		if math.IsNaN(v.iters) {
			continue
		}
		if v.rounds*key.tau != v.iters {
			t.Errorf("%v: %g rounds of %g iterations is not %g iterations", key, v.rounds, key.tau, v.iters)
		}
		if want := v.rounds * (key.tau + key.s) * c; math.Abs(v.seconds-want) > 1e-3*want+2e-4 {
			t.Errorf("%v: modelled %g s, want rounds·(τ + S/C)·C = %g", key, v.seconds, want)
		}
		if want := serial.seconds / v.seconds; math.Abs(v.speedup-want) > 1e-3*want+1e-4 {
			t.Errorf("%v: speedup %g, want %g", key, v.speedup, want)
		}
	}
	// With one replica averaging changes nothing: τ changes the rounds,
	// not the iterations, and only the overhead lowers the speedup.
	for _, s := range []float64{0, 1, 10, 100} {
		if one, five := got[cell{1, 1, s}], got[cell{1, 5, s}]; one.iters != five.iters {
			t.Errorf("S %g: K = 1 needs %g iterations with τ = 1 and %g with τ = 5", s, one.iters, five.iters)
		}
	}
	for _, tau := range []float64{1, 5} {
		if v := got[cell{1, tau, 0}].speedup; v != 1 {
			t.Errorf("K = 1, τ = %g: speedup %g without overhead, want 1", tau, v)
		}
	}
}

// TestPaperSpeedupArguments checks that the study refuses unknown
// arguments and bad settings before it trains.
func TestPaperSpeedupArguments(t *testing.T) {
	tests := []struct {
		name string
		env  string
		args []string
		want string
	}{
		{"unknown argument", "", []string{"--fast"}, `unknown argument "--fast"; the arguments are --full and --out DIR`},
		{"bad list", "SPARKNET_SPEEDUP_TAU=1,x", nil, `SPARKNET_SPEEDUP_TAU="1,x": want numbers >= 0 separated by commas`},
		{"fraction", "SPARKNET_SPEEDUP_K=1.5", nil, `SPARKNET_SPEEDUP_K="1.5": want whole numbers >= 1`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				name, value, _ := strings.Cut(tc.env, "=")
				t.Setenv(name, value)
			}
			args := append([]string{"--master", "local[2]", filepath.Join(repoRoot, "examples", "paper_speedup.go")}, tc.args...)
			res := runShell(t, t.TempDir(), "", time.Minute, args...)
			if res.code != 2 || !strings.Contains(res.out, tc.want) {
				t.Errorf("exit status %d, output:\n%s\nwant status 2 and %q", res.code, res.out, tc.want)
			}
		})
	}
}

// checkMeasuredCSV checks the measured times: one row per (K, τ), the raw
// time the sum of compute and communication, the normalised one
// rounds·τ·C plus the communication, and the speedups the serial time
// over them.
func checkMeasuredCSV(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := "K,tau,hosts,master,iterations,rounds,compute_seconds,comm_seconds,raw_seconds,normalised_seconds,S_seconds_per_round,raw_speedup,normalised_speedup"
	if len(rows) == 0 || strings.Join(rows[0], ",") != want {
		t.Fatalf("CSV header %v, want %s", rows[:min(len(rows), 1)], want)
	}
	if len(rows) != 1+2*2 {
		t.Fatalf("%d CSV rows, want 4 (K and τ 2×2) after the header", len(rows)-1)
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("CSV value %q: %v", s, err)
		}
		return v
	}
	var serial float64 // iterations·C, from the first reached row
	for _, r := range rows[1:] {
		if r[2] != "2" || r[3] != "local[2]" {
			t.Errorf("row %v: hosts and master, want 2 and local[2]", r)
		}
		if r[4] == "" {
			continue // not reached
		}
		compute, comm, raw, norm := num(r[6]), num(r[7]), num(r[8]), num(r[9])
		if math.Abs(raw-(compute+comm)) > 2e-4 || comm < 0 || norm < comm {
			t.Errorf("row %v: raw %g is not compute %g + comm %g, or normalised %g is below comm", r, raw, compute, comm, norm)
		}
		if math.Abs(num(r[10])*num(r[5])-comm) > 1e-4+1e-5*comm {
			t.Errorf("row %v: S per round times rounds is not the comm seconds", r)
		}
		s := num(r[11]) * raw
		if serial == 0 {
			serial = s
		}
		if math.Abs(s-serial) > 1e-3*serial || math.Abs(num(r[12])*norm-serial) > 1e-3*serial {
			t.Errorf("row %v: the speedups do not divide one serial time (%g)", r, serial)
		}
	}
	if serial == 0 {
		t.Errorf("no run reached the target:\n%v", rows)
	}
}
