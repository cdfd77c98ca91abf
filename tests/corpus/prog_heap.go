//go:build ignore

// A priority queue with container/heap.
package main

import (
	"container/heap"
	"fmt"
)

type Task struct {
	name     string
	priority int
}

type PQ []Task

func (q PQ) Len() int           { return len(q) }
func (q PQ) Less(i, j int) bool { return q[i].priority > q[j].priority }
func (q PQ) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *PQ) Push(x any)        { *q = append(*q, x.(Task)) }
func (q *PQ) Pop() any          { old := *q; n := len(old); t := old[n-1]; *q = old[:n-1]; return t }

func main() {
	q := &PQ{{"write", 2}, {"test", 5}, {"lunch", 1}}
	heap.Init(q)
	heap.Push(q, Task{"deploy", 4})
	for q.Len() > 0 {
		t := heap.Pop(q).(Task)
		fmt.Println(t.priority, t.name)
	}
}
