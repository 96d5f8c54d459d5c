package main

import (
	"encoding/json"
	"fmt"
)

type Config struct {
	Host    string            `json:"host"`
	Port    int               `json:"port"`
	Debug   bool              `json:"debug"`
	Labels  map[string]string `json:"labels"`
	Servers []struct {
		Name string `json:"name"`
	} `json:"servers"`
}

func main() {
	data := `{"host":"localhost","port":8080,"debug":true,"labels":{"env":"dev"},"servers":[{"name":"a"},{"name":"b"}]}`
	var c Config
	if err := json.Unmarshal([]byte(data), &c); err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Printf("%s:%d %v %v %d %s\n", c.Host, c.Port, c.Debug, c.Labels, len(c.Servers), c.Servers[1].Name)
}
