package main

import (
	"errors"
	"fmt"
)

type ValidationError struct{ Field string }

func (e ValidationError) Error() string { return "invalid " + e.Field }

func validate(name string) error {
	if name == "" {
		return ValidationError{"name"}
	}
	return nil
}

func main() {
	err := fmt.Errorf("create user: %w", validate(""))
	var ve ValidationError
	fmt.Println(errors.As(err, &ve), ve.Field)
	fmt.Println(validate("ok") == nil)
	fmt.Println(err)
}
