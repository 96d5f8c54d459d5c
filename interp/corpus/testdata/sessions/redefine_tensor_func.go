// The program equivalent to redefine_tensor_func.cells: act is rebound,
// and layer, declared before the rebinding, calls the new act.
package main

import (
	"fmt"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/display"
)

var act func(x *emily.Tensor) *emily.Tensor

func layer(x *emily.Tensor) *emily.Tensor { return act(emily.Add(x, emily.Scalar(1))) }

func main() {
	fmt.Println("@@@ cell 0 @@@")
	act = func(x *emily.Tensor) *emily.Tensor { return emily.Mul(x, emily.Scalar(2)) }
	fmt.Println("@@@ cell 1 @@@")
	fmt.Println("@@@ cell 2 @@@")
	fmt.Println(display.Text(layer(emily.Ones(2)).ToFloat32s()))
	fmt.Println("@@@ cell 3 @@@")
	act = func(x *emily.Tensor) *emily.Tensor { return emily.Mul(x, x) }
	fmt.Println("@@@ cell 4 @@@")
	fmt.Println(display.Text(layer(emily.Ones(2)).ToFloat32s()))
}
