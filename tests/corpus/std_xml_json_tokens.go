//go:build ignore

package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

func main() {
	dec := xml.NewDecoder(strings.NewReader(`<list n="2"><item>a</item><item>b</item></list>`))
	depth := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			fmt.Printf("%*sstart %s %d attrs\n", depth*2, "", t.Name.Local, len(t.Attr))
			depth++
		case xml.EndElement:
			depth--
			fmt.Printf("%*send %s\n", depth*2, "", t.Name.Local)
		case xml.CharData:
			fmt.Printf("%*stext %q\n", depth*2, "", string(t))
		default:
			fmt.Printf("other %T\n", t)
		}
	}
	jd := json.NewDecoder(strings.NewReader(`{"a": [1, "x", true, null]}`))
	for {
		tok, err := jd.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			fmt.Println("delim", v.String())
		case float64:
			fmt.Println("number", v)
		case string:
			fmt.Println("string", v)
		case bool:
			fmt.Println("bool", v)
		case nil:
			fmt.Println("null")
		}
	}
	var tok xml.Token = xml.Comment(" c ")
	_, isComment := tok.(xml.Comment)
	fmt.Println(isComment)
}
