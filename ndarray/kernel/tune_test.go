package kernel

import (
	"os"
	"strconv"
)

func init() {
	g := active.gemm
	if v, err := strconv.Atoi(os.Getenv("KC")); err == nil {
		g.kc = v
	}
	if v, err := strconv.Atoi(os.Getenv("MC")); err == nil {
		g.mc = v
	}
	if v, err := strconv.Atoi(os.Getenv("NC")); err == nil {
		g.nc = v
	}
}
