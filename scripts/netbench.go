//go:build ignore

// Per-round compute, communication and bytes of data-parallel training on
// a cluster, measured: run it under scripts/netcluster.sh (or any mpirun)
// with one rank per host.
//
//	scripts/netcluster.sh 4 1gbit 0.1ms -- sparknet-shell --master mpi scripts/netbench.go lenet 20 10 results.csv
//	scripts/netcluster.sh 4 1gbit 5ms -- sparknet-shell --master mpi scripts/netbench.go alexnet 4 1 results.csv
//
// MODEL is lenet (LeNet on MNIST, 431,080 weights) or alexnet (AlexNet,
// 60,965,224 weights, trained on random 227×227 images in minibatches of
// 4: its compute is real, its accuracy meaningless). Every rank holds one
// replica; each round runs TAU local iterations and averages the weights
// with an allreduce. After every round every rank reads its own network
// counters (/proc/net/dev: the bytes its interfaces sent and received,
// headers included), so the bytes are what crossed the links, exactly.
// The first round builds the replicas and is left out of the summary.
//
// A line per round goes to the CSV file (appended; a header when it is
// new): the setting (hosts, bandwidth, latency and how it was made, from
// netcluster.sh's environment), compute and communication seconds (the
// trainer's, the injected latency included in communication; on a machine
// whose cores the hosts share, communication also holds the wait for the
// slowest rank), the seconds of one allreduce of the weights alone, timed
// after the round once every rank has reached it (the network's own
// cost; its bytes are not counted with the round's), the wire
// bytes sent and received by the busiest rank and on average, and the
// machine's load average, since on a shared machine the times vary.
//
// COMPRESS (default none) is a sparknet.ParseCompression name: bfloat16,
// float16 or top-1% average compressed changes (Options.Compress), which
// cross the links in the compressed form.
//
//	sparknet-shell --master mpi scripts/netbench.go [MODEL [ROUNDS [TAU [CSV [COMPRESS]]]]]

import (
	"bufio"
	"encoding/csv"
	"path/filepath"
	"sort"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

model, rounds, tau, csvPath, compressName := "lenet", 10, 10, "", "none"
if len(os.Args) > 1 {
	model = os.Args[1]
}
if len(os.Args) > 2 {
	rounds, _ = strconv.Atoi(os.Args[2])
}
if len(os.Args) > 3 {
	tau, _ = strconv.Atoi(os.Args[3])
}
if len(os.Args) > 4 {
	csvPath = os.Args[4]
}
if len(os.Args) > 5 {
	compressName = os.Args[5]
}
compress, err := sparknet.ParseCompression(compressName)
if err != nil {
	fmt.Println(err)
	os.Exit(2)
}
if rounds < 2 || tau < 1 {
	fmt.Println("netbench: want at least 2 rounds and tau >= 1")
	os.Exit(2)
}
here := filepath.Dir(os.Args[0])
hosts := sc.Workers()

// The setting, as netcluster.sh describes it.
setting := func(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
bandwidth := setting("SPARKNET_NETCLUSTER_BANDWIDTH", "unknown")
latency := setting("SPARKNET_NETCLUSTER_LATENCY", "0")
latencyBy := setting("SPARKNET_NETCLUSTER_LATENCY_BY", "none")

var solver *caffepb.SolverParameter
var train *rdd.RDD
switch model {
case "lenet":
	solver, err = caffe.LoadSolverParameter(filepath.Join(here, "lenet_solver.prototxt"))
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	train, err = sc.MNIST("", true, hosts)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
case "alexnet":
	src, err := os.ReadFile(filepath.Join(here, "..", "caffe", "testdata", "bench", "alexnet_train.prototxt"))
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	// The benchmark net reads Input blobs; the trainer feeds Data layers.
	text := string(src)
	start := strings.Index(text, `layer { name: "data" type: "Input"`)
	end := strings.Index(text, `layer { name: "conv1"`)
	if start < 0 || end < start {
		fmt.Println("netbench: alexnet_train.prototxt does not start with its Input layer")
		os.Exit(1)
	}
	text = text[:start] + `layer { name: "data" type: "Data" top: "data" top: "label" data_param { batch_size: 4 } }` + "\n" + text[end:]
	solver, err = caffe.ParseSolverParameter("alexnet solver", []byte(`base_lr: 0.001 momentum: 0.9 weight_decay: 0.0005 lr_policy: "fixed" net_param { `+text+` }`))
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	const perHost = 16
	images, err := data.NewSamples(hosts*perHost, 3, 227, 227, true)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	copy(images.Floats, ndarray.Randn(7, len(images.Floats)).Data())
	for i := range images.Labels {
		images.Labels[i] = float32(i % 1000)
	}
	train = sc.ParallelizeSamples(images, hosts)
default:
	fmt.Printf("netbench: unknown model %q: lenet or alexnet\n", model)
	os.Exit(2)
}

trainer, err := sparknet.Parallelize(sc, solver, train.Cache(), sparknet.Options{Tau: tau, Seed: 1, Compress: compress})
if err != nil {
	fmt.Println(err)
	os.Exit(1)
}

weights := trainer.Weights().NumParams()

// counters reads this host's interface counters: bytes sent and received
// by every interface but loopback.
counters := func() []int64 {
	f, err := os.Open("/proc/net/dev")
	if err != nil {
		return []int64{0, 0}
	}
	defer f.Close()
	var tx, rx int64
	s := bufio.NewScanner(f)
	for s.Scan() {
		name, rest, ok := strings.Cut(s.Text(), ":")
		if !ok || strings.TrimSpace(name) == "lo" {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) < 9 {
			continue
		}
		r, _ := strconv.ParseInt(fields[0], 10, 64)
		t, _ := strconv.ParseInt(fields[8], 10, 64)
		rx += r
		tx += t
	}
	return []int64{tx, rx}
}
// everyRank returns every rank's counters, by rank: partition r of a
// one-element-per-rank RDD runs on rank r.
everyRank := func() [][]int64 {
	out, err := sc.Range(0, hosts, 1, hosts).Map(func(x any) any { return counters() }).Collect()
	if err != nil {
		panic(err)
	}
	all := make([][]int64, len(out))
	for i, v := range out {
		all[i] = v.([]int64)
	}
	return all
}
loadAverage := func() string {
	b, _ := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return ""
}

fmt.Printf("netbench: %s (%d weights, %.1f MB), %d hosts, %s, latency %s (%s), %d rounds of %d iterations, compression %s\n",
	model, weights, float64(weights)*4/1e6, hosts, bandwidth, latency, latencyBy, rounds, tau, compress)
// pureAllreduce times an allreduce of as many float32 as the weights once
// every rank has arrived (a barrier first): the cost of the network alone,
// where the round's communication also holds the wait for the slowest
// rank's compute. 0 without MPI.
allreduceBuf := make([]float32, weights)
pureAllreduce := func() float64 {
	comm := sc.Comm()
	if comm == nil {
		return 0
	}
	if err := comm.Barrier(); err != nil {
		panic(err)
	}
	start := time.Now()
	if err := comm.AllreduceFloat32Sum(allreduceBuf); err != nil {
		panic(err)
	}
	return time.Since(start).Seconds()
}
type row struct {
	round             int
	compute, comm     float64
	allreduce         float64
	maxTx, maxRx      int64
	meanTx, meanRx    float64
	load              string
}
var rows []row
before := everyRank()
for r := 1; r <= rounds; r++ {
	ev, err := trainer.Round(ctx)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	after := everyRank()
	x := row{round: r, compute: ev.ComputeSeconds, comm: ev.CommSeconds, load: loadAverage()}
	for h := range after {
		tx, rx := after[h][0]-before[h][0], after[h][1]-before[h][1]
		x.maxTx, x.maxRx = max(x.maxTx, tx), max(x.maxRx, rx)
		x.meanTx += float64(tx) / float64(hosts)
		x.meanRx += float64(rx) / float64(hosts)
	}
	x.allreduce = pureAllreduce()
	before = everyRank() // the bytes of the lone allreduce are not the round's
	rows = append(rows, x)
	fmt.Printf("round %2d: compute %7.3fs  communication %7.3fs  (allreduce alone %7.3fs)  sent %8.2f MB  received %8.2f MB per rank (most)  load %s\n",
		r, x.compute, x.comm, x.allreduce, float64(x.maxTx)/1e6, float64(x.maxRx)/1e6, x.load)
}

// The summary leaves out round 1 (it builds the replicas): medians.
median := func(f func(row) float64) float64 {
	var v []float64
	for _, x := range rows[1:] {
		v = append(v, f(x))
	}
	sort.Float64s(v)
	return v[len(v)/2]
}
compute := median(func(x row) float64 { return x.compute })
comm := median(func(x row) float64 { return x.comm })
alone := median(func(x row) float64 { return x.allreduce })
sent := median(func(x row) float64 { return float64(x.maxTx) })
fmt.Printf("median of rounds 2-%d: compute %.3fs, communication %.3fs (%.0f%% of the round; an allreduce alone %.3fs), %.2f MB sent per rank, %.2f× the weights\n",
	rounds, compute, comm, 100*comm/(compute+comm), alone, sent/1e6, sent/(4*float64(weights)))

if csvPath != "" && sc.IsDriver() {
	_, statErr := os.Stat(csvPath)
	f, err := os.OpenFile(csvPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	w := csv.NewWriter(f)
	if statErr != nil {
		w.Write([]string{"model", "compression", "weights", "hosts", "bandwidth", "latency", "latency_by", "tau", "round",
			"compute_s", "comm_s", "allreduce_s", "max_tx_bytes", "max_rx_bytes", "mean_tx_bytes", "mean_rx_bytes", "load"})
	}
	for _, x := range rows {
		w.Write([]string{model, compress.String(), strconv.Itoa(weights), strconv.Itoa(hosts), bandwidth, latency, latencyBy, strconv.Itoa(tau), strconv.Itoa(x.round),
			strconv.FormatFloat(x.compute, 'f', 4, 64), strconv.FormatFloat(x.comm, 'f', 4, 64), strconv.FormatFloat(x.allreduce, 'f', 4, 64),
			strconv.FormatInt(x.maxTx, 10), strconv.FormatInt(x.maxRx, 10),
			strconv.FormatFloat(x.meanTx, 'f', 0, 64), strconv.FormatFloat(x.meanRx, 'f', 0, 64), x.load})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	f.Close()
}
