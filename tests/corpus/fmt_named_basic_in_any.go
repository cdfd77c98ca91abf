//go:build ignore

// Values of declared types that are not structs (type Level int, type
// Celsius float64) with String methods, passed through any to helpers,
// spread into fmt, and held in slices and maps: fmt calls their methods
// and %T names them.
package main

import (
	"fmt"
	"sort"
	"strings"
)

type Level int

const (
	Debug Level = iota
	Info
	Warn
)

func (l Level) String() string { return [...]string{"DEBUG", "INFO", "WARN"}[l] }

type Celsius float64

func (c Celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }

func describe(v any) string { return fmt.Sprintf("%v (%T)", v, v) }

func logf(format string, args ...any) { fmt.Printf("log: "+format+"\n", args...) }

func printAll(items []any) { fmt.Println(items) }

func main() {
	lvl := Warn
	temp := Celsius(21.5)
	fmt.Println(describe(lvl), describe(temp))
	logf("level %v, temperature %v", lvl, temp)
	items := []any{lvl, temp, Info}
	printAll(items)
	byName := map[string]any{"lvl": lvl, "t": temp}
	keys := make([]string, 0, len(byName))
	for k := range byName {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Println(k, byName[k])
	}
	var parts []string
	for _, l := range []Level{Debug, Info, Warn} {
		parts = append(parts, describe(l))
	}
	fmt.Println(strings.Join(parts, "; "))
}
