//go:build ignore

// Struct tags read through reflection, and JSON that uses them.
package main

import (
	"encoding/json"
	"fmt"
	"reflect"
)

type User struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
	Admin bool   `json:"-"`
}

func main() {
	t := reflect.TypeOf(User{})
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		fmt.Println(f.Name, f.Tag.Get("json"))
	}
	b, err := json.Marshal(User{Name: "ann", Admin: true})
	fmt.Println(string(b), err)
	var u User
	err = json.Unmarshal([]byte(`{"name":"bo","email":"b@x"}`), &u)
	fmt.Println(u.Name, u.Email, err)
}
