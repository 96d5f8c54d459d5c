package main

import (
	"fmt"
	"time"
)

func main() {
	d := 3*time.Hour + 25*time.Minute + 500*time.Millisecond
	fmt.Println(d, d.Round(time.Minute), d.Truncate(time.Hour))
	t := time.Date(2024, time.February, 29, 13, 4, 5, 0, time.UTC)
	fmt.Println(t.Format(time.RFC3339), t.Weekday(), t.YearDay())
	fmt.Println(t.AddDate(1, 0, 0).Format("2006-01-02"))
	fmt.Println(t.Sub(t.Add(-90 * time.Minute)))
}
