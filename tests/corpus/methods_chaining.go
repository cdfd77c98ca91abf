//go:build ignore

// Methods that return the receiver can be chained.
package main

import (
	"fmt"
	"strings"
)

type Query struct {
	table  string
	wheres []string
	limit  int
}

func From(t string) *Query { return &Query{table: t} }

func (q *Query) Where(c string) *Query { q.wheres = append(q.wheres, c); return q }
func (q *Query) Limit(n int) *Query    { q.limit = n; return q }
func (q *Query) String() string {
	s := "SELECT * FROM " + q.table
	if len(q.wheres) > 0 {
		s += " WHERE " + strings.Join(q.wheres, " AND ")
	}
	if q.limit > 0 {
		s += fmt.Sprintf(" LIMIT %d", q.limit)
	}
	return s
}

func main() {
	fmt.Println(From("users").Where("age > 3").Where("name != ''").Limit(10).String())
	fmt.Println(From("t").String())
}
