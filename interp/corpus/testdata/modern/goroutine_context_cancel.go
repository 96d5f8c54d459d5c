package main

import (
	"context"
	"errors"
	"fmt"
)

func count(ctx context.Context, out chan<- int) error {
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case out <- i:
		}
	}
}

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan int)
	errc := make(chan error, 1)
	go func() { errc <- count(ctx, out) }()
	for range 3 {
		fmt.Println(<-out)
	}
	cancel()
	err := <-errc
	fmt.Println(errors.Is(err, context.Canceled))
}
