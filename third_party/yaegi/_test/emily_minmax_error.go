package main

func main() {
	a := 1
	println(min(a, "a"))
}

// Error:
// invalid argument: mismatched types int (previous argument) and untyped string (type of "a")
