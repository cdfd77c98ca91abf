//go:build ignore

// encoding/json: marshalling structs, maps and slices, and decoding into them.
package main

import (
	"encoding/json"
	"fmt"
)

type Item struct {
	ID    int      `json:"id"`
	Name  string   `json:"name"`
	Tags  []string `json:"tags,omitempty"`
	Price float64  `json:"price"`
}

func main() {
	items := []Item{{1, "pen", []string{"office"}, 1.5}, {2, "cup", nil, 4}}
	b, err := json.Marshal(items)
	fmt.Println(string(b), err)
	pretty, _ := json.MarshalIndent(map[string]int{"b": 2, "a": 1}, "", "  ")
	fmt.Println(string(pretty))
	var back []Item
	err = json.Unmarshal(b, &back)
	fmt.Println(len(back), back[0].Tags, back[1].Price, err)
	var generic map[string]any
	json.Unmarshal([]byte(`{"n": 3, "ok": true, "list": [1, "x"]}`), &generic)
	fmt.Println(generic["n"], generic["ok"], generic["list"])
	err = json.Unmarshal([]byte(`{"id": "x"}`), &back[0])
	fmt.Println(err)
}
