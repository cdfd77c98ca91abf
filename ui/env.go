package ui

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// environment describes the application, the front end's properties, the
// process and the modules it was built from.
func environment(app AppInfo, start time.Time, o Options) Environment {
	var env Environment
	add := func(name string, items [][2]string) {
		if len(items) > 0 {
			env.Sections = append(env.Sections, EnvSection{Name: name, Items: items})
		}
	}
	add("Application", [][2]string{
		{"name", app.Name},
		{"id", app.ID},
		{"master", app.Master},
		{"workers", fmt.Sprint(app.Workers)},
		{"ranks", fmt.Sprint(app.Ranks)},
		{"started", start.Format(time.RFC3339)},
		{"kernels", kernel.Implementation()},
	})
	add("Front end", o.Properties)
	host, _ := os.Hostname()
	wd, _ := os.Getwd()
	add("Runtime", [][2]string{
		{"Go", runtime.Version()},
		{"GOOS/GOARCH", runtime.GOOS + "/" + runtime.GOARCH},
		{"GOMAXPROCS", fmt.Sprint(runtime.GOMAXPROCS(0))},
		{"CPUs", fmt.Sprint(runtime.NumCPU())},
		{"host", host},
		{"pid", fmt.Sprint(os.Getpid())},
		{"working directory", wd},
	})
	if bi, ok := debug.ReadBuildInfo(); ok {
		var mods [][2]string
		if bi.Main.Path != "" {
			mods = append(mods, [2]string{bi.Main.Path, bi.Main.Version})
		}
		for _, d := range bi.Deps {
			v := d.Version
			if d.Replace != nil {
				v += " => " + d.Replace.Path + " " + d.Replace.Version
			}
			mods = append(mods, [2]string{d.Path, v})
		}
		add("Modules", mods)
		var settings [][2]string
		for _, s := range bi.Settings {
			switch s.Key {
			case "-tags", "CGO_ENABLED", "GOAMD64", "vcs.revision", "vcs.time", "vcs.modified":
				settings = append(settings, [2]string{s.Key, s.Value})
			}
		}
		add("Build", settings)
	}
	var vars [][2]string
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "SPARKNET_") || strings.HasPrefix(k, "OMPI_COMM_WORLD_") || k == "GOMAXPROCS" || k == "GOGC" {
			vars = append(vars, [2]string{k, v})
		}
	}
	sort.Slice(vars, func(i, j int) bool { return vars[i][0] < vars[j][0] })
	add("Environment variables", vars)
	return env
}
