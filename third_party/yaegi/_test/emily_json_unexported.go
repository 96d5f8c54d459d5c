package main

import (
	"encoding/json"
	"fmt"
)

// encoding/json ignores the unexported fields of session struct types,
// as it does those of compiled ones, even when tagged (PATCHES.md 16).

type User struct {
	Name  string `json:"name"`
	email string
	Age   int    `json:"age,omitempty"`
	note  string `json:"note"`
}

type Wrap struct {
	U      User
	Count  int
	hidden bool
}

func main() {
	u := User{Name: "ann", email: "a@x", Age: 3, note: "n"}
	b, err := json.Marshal(u)
	fmt.Println(string(b), err)
	b, _ = json.Marshal(Wrap{U: u, Count: 2, hidden: true})
	fmt.Println(string(b))
	b, _ = json.MarshalIndent(map[string]User{"k": u}, "", " ")
	fmt.Println(string(b))
	var v User
	err = json.Unmarshal([]byte(`{"name":"bob","email":"e","Xemail":"z","note":"q","age":5}`), &v)
	fmt.Printf("%q %q %q %d %v\n", v.Name, v.email, v.note, v.Age, err)
}

// Output:
// {"name":"ann","age":3} <nil>
// {"U":{"name":"ann","age":3},"Count":2}
// {
//  "k": {
//   "name": "ann",
//   "age": 3
//  }
// }
// "bob" "" "" 5 <nil>
