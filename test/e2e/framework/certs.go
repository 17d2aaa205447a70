package framework

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// The keys and certificates are made with Go's crypto so a fresh clone needs
// no openssl. ECDSA P-256 keeps generation instant; kube-apiserver accepts it
// both for serving and for signing ServiceAccount tokens (ES256).

// pkiFiles are the paths of the control plane's credentials in its work dir.
type pkiFiles struct {
	caCert      string
	servingCert string
	servingKey  string
	saKey       string
	saPub       string
	// caPEM is the CA certificate, which clients trust for the apiserver.
	caPEM []byte
}

// writePKI creates a CA, a serving certificate for the apiserver on loopback
// signed by it, and a ServiceAccount signing key pair, all under dir.
func writePKI(dir string) (*pkiFiles, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	files := &pkiFiles{
		caCert:      filepath.Join(dir, "ca.crt"),
		servingCert: filepath.Join(dir, "apiserver.crt"),
		servingKey:  filepath.Join(dir, "apiserver.key"),
		saKey:       filepath.Join(dir, "sa.key"),
		saPub:       filepath.Join(dir, "sa.pub"),
	}
	now := time.Now()

	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "csi-provisioner-e2e-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(7 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("create CA certificate: %w", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	files.caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})

	servingKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	servingTmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(7 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		// Clients here only dial loopback; the in-cluster names keep the
		// certificate valid for anything that resolves the service name.
		DNSNames:    []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	servingDER, err := x509.CreateCertificate(rand.Reader, servingTmpl, caCert, &servingKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("create serving certificate: %w", err)
	}

	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	saPub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return nil, err
	}

	writes := []struct {
		path  string
		block *pem.Block
	}{
		{files.caCert, &pem.Block{Type: "CERTIFICATE", Bytes: caDER}},
		{files.servingCert, &pem.Block{Type: "CERTIFICATE", Bytes: servingDER}},
		{files.servingKey, ecKeyBlock(servingKey)},
		{files.saKey, ecKeyBlock(saKey)},
		{files.saPub, &pem.Block{Type: "PUBLIC KEY", Bytes: saPub}},
	}
	for _, w := range writes {
		if w.block == nil {
			return nil, fmt.Errorf("encode %s", w.path)
		}
		if err := os.WriteFile(w.path, pem.EncodeToMemory(w.block), 0o600); err != nil {
			return nil, err
		}
	}
	return files, nil
}

func ecKeyBlock(key *ecdsa.PrivateKey) *pem.Block {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil
	}
	return &pem.Block{Type: "EC PRIVATE KEY", Bytes: der}
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		// crypto/rand does not fail on Linux; a fixed serial would still
		// produce a usable certificate.
		return big.NewInt(1)
	}
	return n
}

// randomToken returns a hex string of n random bytes, for the static admin
// token.
func randomToken(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
