//go:build ignore

// Breadth-first search for shortest paths in a small graph.
package main

import "fmt"

func bfs(adj map[string][]string, start string) map[string]int {
	dist := map[string]int{start: 0}
	queue := []string{start}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, next := range adj[cur] {
			if _, seen := dist[next]; !seen {
				dist[next] = dist[cur] + 1
				queue = append(queue, next)
			}
		}
	}
	return dist
}

func main() {
	adj := map[string][]string{
		"a": {"b", "c"},
		"b": {"d"},
		"c": {"d", "e"},
		"d": {"f"},
		"e": {"f"},
	}
	d := bfs(adj, "a")
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		v, ok := d[n]
		fmt.Println(n, v, ok)
	}
}
