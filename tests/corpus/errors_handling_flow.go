//go:build ignore

// Early returns on error keep the happy path at the left margin.
package main

import (
	"errors"
	"fmt"
	"strings"
)

type config struct {
	name string
	port int
}

func parse(line string) (config, error) {
	key, val, ok := strings.Cut(line, "=")
	if !ok {
		return config{}, errors.New("missing '='")
	}
	if key != "port" {
		return config{}, fmt.Errorf("unknown key %q", key)
	}
	var port int
	if _, err := fmt.Sscanf(val, "%d", &port); err != nil {
		return config{}, fmt.Errorf("port: %v", err)
	}
	return config{name: "server", port: port}, nil
}

func main() {
	for _, l := range []string{"port=8080", "host=x", "port", "port=abc"} {
		c, err := parse(l)
		if err != nil {
			fmt.Println("bad line:", err)
			continue
		}
		fmt.Printf("%+v\n", c)
	}
}
