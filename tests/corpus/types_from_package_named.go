//go:build ignore

// Types declared as named types of a compiled package (type D time.Duration)
// have its underlying type and their own methods only, not its methods.
package main

import (
	"fmt"
	"time"
)

type D time.Duration

type Temp time.Duration

func (t Temp) String() string { return fmt.Sprintf("%dns!", int64(t)) }

func (t Temp) Double() Temp { return 2 * t }

type Weekday time.Weekday

type Timeout time.Duration

func (t Timeout) Error() string { return fmt.Sprintf("timed out after %v", time.Duration(t)) }

type Reading struct {
	At   D
	Temp Temp
}

func main() {
	d := D(time.Second)
	fmt.Println(d, D(5))
	fmt.Printf("%v %d %T %x\n", d, d, d, d)
	fmt.Println(Temp(3), []Temp{1, 2}, Temp(4).Double())
	fmt.Printf("%v %s %d %T\n", Temp(5), Temp(6), Temp(7), Temp(8))
	fmt.Println(Weekday(2), time.Weekday(2), map[string]Weekday{"tue": 2})
	fmt.Println(time.Duration(d), Reading{d, 9})
	fmt.Printf("%+v\n", Reading{D(10), 11})
	var err error = Timeout(time.Millisecond)
	fmt.Println(err, Timeout(2*time.Second))
	fmt.Println(fmt.Sprint(D(1), Temp(1)), fmt.Sprintf("%v|%v", Weekday(0), Temp(12)))
}
