// Package ui is sparknet's live web UI and event log: what Spark's UI on
// port 4040 and its history server show, for RDD jobs and for SparkNet
// training.
//
// # The live UI
//
// Start attaches a UI to an RDD context. It subscribes to the context's
// events and, through sparknet.OnParallelize, to every trainer made on
// the context; nothing in package rdd or the trainer knows it exists.
//
//	sc, _ := rdd.NewContext("local[*]")
//	u, _ := ui.Start(sc, ui.Options{Port: ui.DefaultPort, EventLog: "events"})
//	defer u.Close()
//	fmt.Println("web UI at", u.URL()) // http://127.0.0.1:4040/, or the next free port
//
// sparknet-shell does this for its context sc (flags --ui-port, --no-ui
// and --event-log) and prints the address in its banner.
//
// The pages are rendered on the server and kept current with server-sent
// events; the style sheet and the small script that swaps updates in are
// embedded, and the charts are inline SVG drawn by this package:
//
//   - Jobs: running, failed and succeeded jobs, a timeline of jobs and
//     their stages; a job's page lists its stages and every task attempt
//     with its worker, duration and error, with a timeline per worker.
//   - Workers: per worker, its tasks and their time, the partitions it
//     caches and the memory of its cache and its store.
//   - Storage: the persisted RDDs, and per RDD its cached partitions.
//   - Training: per trainer, the rounds with train loss, test loss and
//     accuracy curves, compute and communication time per round, bytes
//     moved, τ, K, the outer optimizer and the learning-rate schedule.
//   - Environment: the master, the kernels, versions, options.
//
// # The API
//
// The same state answers in JSON under /api/v1/, in the style of Spark's
// REST API: applications, jobs, jobs/{id}, stages, stages/{id},
// workers, storage, storage/{id}, trainers, trainers/{id},
// trainers/{id}/rounds, trainers/{id}/steps, trainers/{id}/schedule,
// environment, and events (a server-sent stream of the records as they
// happen). Each is also under /api/v1/applications/{app-id}/. An unknown
// ID is a 404 whose JSON body says which IDs exist.
//
// # The event log and the history server
//
// With Options.EventLog every event is written as a JSON line (a Record)
// to DIR/APP-ID.jsonl, named .jsonl.inprogress until the UI closes, as
// Spark's spark.eventLog does. The UI's state is nothing but the fold of
// these records, so NewHistory, which replays logs (the command
// sparknet ui --events DIR), serves the pages and the /api/v1/ answers
// the live UI gave.
//
// # Clusters
//
// Under an SPMD engine (MPI) every rank runs Start, and only rank 0
// serves and logs. Each rank sends its task attempts and its worker's
// cache and store with its task results (see rdd.Event.Remote and
// rdd.Context.WorkerStatus), so rank 0's UI shows every rank.
//
// # Cost
//
// Subscribers run on the goroutines of jobs and rounds, so the UI only
// updates its state and buffers the log there; pages are drawn when a
// browser asks, at most once a second per open page. The benchmark
// BenchmarkUIOverhead measures what it costs a training round.
package ui
