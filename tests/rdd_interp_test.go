package tests

import (
	"reflect"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/sparknet-go/sparknet/data"
	"github.com/sparknet-go/sparknet/rdd"
)

// rddSymbols exposes the parts of rdd and data that these scripts use,
// as the shell's generated symbol tables do.
var rddSymbols = interp.Exports{
	"github.com/sparknet-go/sparknet/rdd/rdd": {
		"NewContext":  reflect.ValueOf(rdd.NewContext),
		"Context":     reflect.ValueOf((*rdd.Context)(nil)),
		"RDD":         reflect.ValueOf((*rdd.RDD)(nil)),
		"Pair":        reflect.ValueOf((*rdd.Pair)(nil)),
		"TaskError":   reflect.ValueOf((*rdd.TaskError)(nil)),
		"TaskContext": reflect.ValueOf((*rdd.TaskContext)(nil)),
		"Event":       reflect.ValueOf((*rdd.Event)(nil)),
		"TaskEnd":     reflect.ValueOf(rdd.TaskEnd),
		"EventKind":   reflect.ValueOf((*rdd.EventKind)(nil)),
	},
	"github.com/sparknet-go/sparknet/data/data": {
		"NewSamples": reflect.ValueOf(data.NewSamples),
		"Samples":    reflect.ValueOf((*data.Samples)(nil)),
		"Sample":     reflect.ValueOf((*data.Sample)(nil)),
	},
}

// runScript runs body as the body of a function returning a string, in
// a fresh interpreter with rdd, data, fmt and strings imported.
func runScript(t *testing.T, body string) string {
	t.Helper()
	i := interp.New(interp.Options{})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if err := i.Use(rddSymbols); err != nil {
		t.Fatal(err)
	}
	src := "import (\n\"fmt\"\n\"strings\"\n\"github.com/sparknet-go/sparknet/data\"\n\"github.com/sparknet-go/sparknet/rdd\"\n)\n" +
		"var _ = strings.Contains\nvar _ = data.NewSamples\n" +
		"func run() string {\n" + body + "\n}\n"
	if _, err := i.Eval(src); err != nil {
		t.Fatalf("script failed: %v\n%s", err, body)
	}
	v, err := i.Eval("run()")
	if err != nil {
		t.Fatalf("script failed: %v\n%s", err, body)
	}
	return v.String()
}

// TestInterpretedCallbacks drives RDDs from interpreted code, as the shell
// does: callbacks are interpreted closures called by compiled workers.
func TestInterpretedCallbacks(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{"actions", `
			sc, _ := rdd.NewContext("local[2]")
			defer sc.Close()
			r := sc.Range(0, 20, 1, 3).Map(func(x any) any { return x.(int) * x.(int) }).Filter(func(x any) bool { return x.(int)%2 == 0 }).Cache()
			n, _ := r.Count()
			sum, _ := r.Reduce(func(a, b any) any { return a.(int) + b.(int) })
			top, _ := r.Take(3)
			agg, _ := r.TreeAggregate("", func(a, x any) any { return a.(string) + fmt.Sprint(x) + " " }, func(a, b any) any { return a.(string) + b.(string) }, 2)
			return fmt.Sprint(n, " ", sum, " ", top, " ", agg)
		`, "10 1140 [0 4 16] 0 4 16 36 64 100 144 196 256 324 "},
		{"panic in interpreted callback", `
			sc, _ := rdd.NewContext("local[2]")
			defer sc.Close()
			_, err := sc.Range(0, 10, 1, 2).Map(func(x any) any {
				if x.(int) == 7 {
					panic("interpreted boom")
				}
				return x
			}).Count()
			return fmt.Sprint(err)
		`, "rdd: Count (job 1, stage 1): partition 1 failed after 4 attempts: rdd: Map function panicked on element 2 of partition 1: interpreted boom"},
		{"runtime error in interpreted callback", `
			sc, _ := rdd.NewContext("local[2]")
			defer sc.Close()
			err := sc.Parallelize([]any{1, "two", 3}, 1).Foreach(func(x any) { _ = x.(int) })
			return fmt.Sprint(strings.Contains(fmt.Sprint(err), "Foreach function panicked on element 1 of partition 0"))
		`, "true"},
		{"samples and tasks", `
			sc, _ := rdd.NewContext("local[2]")
			defer sc.Close()
			s, _ := data.NewSamples(6, 1, 1, 1, false)
			for i := range s.Labels {
				s.Labels[i] = float32(i)
			}
			res, err := sc.Parallelize(s, 3).RunPartitions(nil, func(tc *rdd.TaskContext) (any, error) {
				sum := float32(0)
				for _, l := range tc.Samples().Labels {
					sum += l
				}
				return sum, nil
			})
			first, _ := sc.Parallelize(s, 3).Filter(func(x any) bool { return x.(data.Sample).Label > 3 }).First()
			return fmt.Sprint(res, " ", err, " ", first.(data.Sample).Label)
		`, "[1 5 9] <nil> 4"},
		{"events", `
			sc, _ := rdd.NewContext("local[2]")
			defer sc.Close()
			ends := 0
			stop := sc.Subscribe(func(e rdd.Event) {
				if e.Kind == rdd.TaskEnd {
					ends++
				}
			})
			sc.Range(0, 10, 1, 4).Count()
			stop()
			return fmt.Sprint(ends)
		`, "4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if s := runScript(t, tc.src); s != tc.want {
				t.Errorf("got %q\nwant %q", s, tc.want)
			}
		})
	}
}
