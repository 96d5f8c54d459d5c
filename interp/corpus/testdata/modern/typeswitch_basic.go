package main

import "fmt"

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case int, int64:
		return fmt.Sprintf("integer %v", x)
	case string:
		return "string " + x
	case []int:
		return fmt.Sprint("slice of ", len(x))
	case func() int:
		return fmt.Sprint("func giving ", x())
	default:
		return fmt.Sprintf("other %T", x)
	}
}

func main() {
	for _, v := range []any{nil, 1, int64(2), "s", []int{1, 2}, func() int { return 7 }, 2.5} {
		fmt.Println(describe(v))
	}
}
