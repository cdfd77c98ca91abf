//go:build !linux

package cputime

import "time"

const supported = false

func thread() time.Duration  { return 0 }
func process() time.Duration { return 0 }
