package acceptance

import "math"

func nan() float64 { return math.NaN() }

// zero returns 0 where the compiler may not fold a division by it.
func zero() float64 { return 0 }
