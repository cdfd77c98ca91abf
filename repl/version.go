package repl

import (
	"runtime/debug"
)

// version is set with -ldflags "-X github.com/sparknet-go/sparknet/repl.version=v1.2.3".
var version = ""

// Version returns the shell's version: the one set at link time, the
// module version, or "devel" with the source revision when known.
func Version() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	v := "devel"
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}
