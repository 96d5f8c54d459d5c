package main

import (
	"encoding/json"
	"fmt"
)

type Celsius float64

func (c Celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }

type J struct{ V int }

func (j J) MarshalJSON() ([]byte, error) { return []byte(`"j"`), nil }

// A session value passed directly to json.MarshalIndent and fmt.Append*
// keeps its MarshalJSON and String methods (emily patch 104).
func main() {
	b, _ := json.MarshalIndent(J{1}, "", " ")
	fmt.Println(string(b))
	fmt.Println(string(fmt.Append(nil, Celsius(1))))
	fmt.Println(string(fmt.Appendf(nil, "%v|%s", Celsius(2), Celsius(3))))
	fmt.Print(string(fmt.Appendln(nil, Celsius(4))))
}

// Output:
// "j"
// 1.0°C
// 2.0°C|3.0°C
// 4.0°C
