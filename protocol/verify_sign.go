package protocol

// The signature check of rsa, ecdsa and eddsa. The controller sends a key and a message per algorithm
// (Plan.VerifySign); the agent signs the message through the path `openssl speed` measures (op VerifyOpSign, the
// signature in Out), verifies that signature through the same path (VerifyOpVerify: it must be accepted) and
// verifies it against the message with its first byte changed (VerifyOpReject: it must be rejected, or the path
// accepts anything). The controller checks the signature with its own crypto and the key it sent.
const (
	VerifyOpSign   = "sign"
	VerifyOpVerify = "verify"
	VerifyOpReject = "reject"

	VerifyAccepted = "accepted"
	VerifyRejected = "rejected"
)

// VerifySignInput is what the controller sends for one algorithm's signature check.
type VerifySignInput struct {
	Key     string `json:"key"`     // the private key, PKCS#8 PEM (a published test key, never a secret)
	Message string `json:"message"` // the message to sign, hex
}
