package tests

import (
	"net"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/sparknet-go/sparknet/repl/jupyter"
)

// The kernel's speed goals: a trivial cell's round trip (execute_request
// until the idle status) under 20 ms, and kernel start to kernel_info_reply
// under 0.5 s. Each benchmark also measures a reference in the same run:
//
//	go test ./tests -run '^$' -bench Kernel -benchtime 200x
//
// BenchmarkKernelExecute/cell is the round trip of the cell "x + 1" and
// /heartbeat a heartbeat's round trip (ZeroMQ alone); BenchmarkKernelStart
// /kernel_info is a start up to the first kernel_info_reply and /exit the
// start and end of sparknet-shell -e 1 (a session without channels).

func BenchmarkKernelExecute(b *testing.B) {
	k := startKernel(b, newConnectionFile(b, b.TempDir()))
	if _, err := k.c.Execute("x := 41", 10*time.Second); err != nil {
		b.Fatal(err)
	}
	b.Run("cell", func(b *testing.B) {
		for b.Loop() {
			ex, err := k.c.Execute("x + 1", 10*time.Second)
			if err != nil || len(ex.IOPub) != 4 {
				b.Fatalf("%v %v", err, types(ex))
			}
		}
	})
	b.Run("heartbeat", func(b *testing.B) {
		for b.Loop() {
			if err := k.c.Ping(5 * time.Second); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkKernelStart(b *testing.B) {
	dir := b.TempDir()
	b.Run("kernel_info", func(b *testing.B) {
		for b.Loop() {
			file := connectionFileWithPorts(b, dir)
			info, _ := jupyter.ReadConnectionFile(file)
			start := time.Now()
			cmd := exec.Command(shellBin, "--master", "local[2]", "--kernel", file)
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			c, err := jupyter.Dial(*info)
			if err != nil {
				b.Fatal(err)
			}
			for {
				if _, err := c.Request(jupyter.Shell, "kernel_info_request", map[string]any{}, 20*time.Millisecond); err == nil {
					break
				}
				if time.Since(start) > 20*time.Second {
					b.Fatal("no kernel_info_reply")
				}
			}
			b.StopTimer()
			c.Request(jupyter.Control, "shutdown_request", map[string]any{"restart": false}, 5*time.Second)
			c.Close()
			cmd.Wait()
			b.StartTimer()
		}
	})
	b.Run("exit", func(b *testing.B) {
		for b.Loop() {
			if out, err := exec.Command(shellBin, "--master", "local[2]", "-e", "1").CombinedOutput(); err != nil {
				b.Fatalf("%v\n%s", err, out)
			}
		}
	})
}

// connectionFileWithPorts writes a connection file with five free ports.
func connectionFileWithPorts(b *testing.B, dir string) string {
	var ports [5]int
	var ls []net.Listener
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		ls = append(ls, l)
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	for _, l := range ls {
		l.Close()
	}
	info := jupyter.ConnectionInfo{Transport: "tcp", IP: "127.0.0.1", ShellPort: ports[0], ControlPort: ports[1], IOPubPort: ports[2],
		StdinPort: ports[3], HBPort: ports[4], SignatureScheme: "hmac-sha256", Key: jupyter.NewID()}
	path := filepath.Join(dir, "bench-"+jupyter.NewID()[:8]+".json")
	if err := info.WriteFile(path); err != nil {
		b.Fatal(err)
	}
	return path
}
