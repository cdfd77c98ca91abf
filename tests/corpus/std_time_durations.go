//go:build ignore

// time.Duration arithmetic and formatting, and fixed dates.
package main

import (
	"fmt"
	"time"
)

func main() {
	d := 90 * time.Minute
	fmt.Println(d, d.Hours(), d.Round(time.Hour), time.Duration(1500)*time.Millisecond)
	t := time.Date(2024, time.February, 28, 22, 30, 0, 0, time.UTC)
	next := t.Add(3 * time.Hour)
	fmt.Println(next.Format(time.RFC3339), next.Weekday(), next.YearDay())
	fmt.Println(next.Sub(t), t.Before(next), t.AddDate(0, 1, 1).Format("2006-01-02"))
	p, err := time.Parse("2006-01-02 15:04", "2023-07-04 09:15")
	fmt.Println(p.Month(), p.Hour(), err)
	dd, _ := time.ParseDuration("1h2m3.5s")
	fmt.Println(dd.Seconds())
}
