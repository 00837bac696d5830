package stats

import "math"

// StudentTwoSidedP is P(|T| ≥ |t|) for Student's t distribution with df degrees of freedom:
// I_{df/(df+t²)}(df/2, 1/2). An infinite t gives 0; df ≤ 0 gives 1 (nothing can be tested).
func StudentTwoSidedP(t, df float64) float64 {
	if df <= 0 || math.IsNaN(t) {
		return 1
	}
	if math.IsInf(t, 0) {
		return 0
	}
	return math.Min(1, regIncBeta(df/2, 0.5, df/(df+t*t)))
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), by the continued fraction of Numerical
// Recipes (betacf), using the symmetry I_x(a,b) = 1 − I_{1−x}(b,a) where the fraction converges slowly.
func regIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

func betaCF(a, b, x float64) float64 {
	const (
		maxIter = 300
		eps     = 1e-15
		tiny    = 1e-300
	)
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= maxIter; m++ {
		fm := float64(m)
		m2 := 2 * fm
		aa := fm * (b - fm) * x / ((qam + m2) * (a + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}
