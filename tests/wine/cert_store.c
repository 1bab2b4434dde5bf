/* Test helper (scripts/wine-test.sh): adds a PEM root certificate to the
 * current user's trusted roots of the Windows certificate store, or removes
 * it again (with any other root of the same subject), as an administrator or
 * a group policy would install a private CA.
 *
 *   cert_store add|remove FILE.pem */
#include <windows.h>
#include <wincrypt.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[1], "add") != 0 && strcmp(argv[1], "remove") != 0)) {
        fprintf(stderr, "usage: cert_store add|remove FILE.pem\n");
        return 2;
    }
    FILE *f = fopen(argv[2], "rb");
    if (f == NULL) {
        fprintf(stderr, "cannot open %s\n", argv[2]);
        return 1;
    }
    char pem[16384];
    size_t n = fread(pem, 1, sizeof pem - 1, f);
    fclose(f);
    pem[n] = '\0';
    BYTE der[16384];
    DWORD der_len = sizeof der;
    if (!CryptStringToBinaryA(pem, 0, CRYPT_STRING_BASE64HEADER, der, &der_len, NULL, NULL)) {
        fprintf(stderr, "%s is not a PEM certificate (%lu)\n", argv[2], GetLastError());
        return 1;
    }
    /* The registry part of the current user's roots (the logical store adds
     * the machine's): where an administrator's import lands. */
    HCERTSTORE store = CertOpenStore(CERT_STORE_PROV_SYSTEM_REGISTRY_W, 0, 0,
                                     CERT_SYSTEM_STORE_CURRENT_USER, L"ROOT");
    if (store == NULL) {
        fprintf(stderr, "cannot open the ROOT store (%lu)\n", GetLastError());
        return 1;
    }
    PCCERT_CONTEXT cert = CertCreateCertificateContext(X509_ASN_ENCODING, der, der_len);
    int rc = 1;
    if (cert == NULL) {
        fprintf(stderr, "unreadable certificate (%lu)\n", GetLastError());
    } else if (strcmp(argv[1], "add") == 0) {
        if (CertAddCertificateContextToStore(store, cert, CERT_STORE_ADD_REPLACE_EXISTING, NULL)) {
            rc = 0;
        } else {
            fprintf(stderr, "cannot add the certificate (%lu)\n", GetLastError());
        }
    } else {
        /* Every root of that subject: one left by an interrupted run would
         * make the next run's root (same name, new key) look forged. */
        rc = 0;
        for (int deleted = 1; deleted && rc == 0;) {
            deleted = 0;
            PCCERT_CONTEXT c = NULL;
            while ((c = CertEnumCertificatesInStore(store, c)) != NULL) {
                if (CertCompareCertificateName(X509_ASN_ENCODING, &c->pCertInfo->Subject,
                                               &cert->pCertInfo->Subject)) {
                    /* Deleting frees the context and ends this enumeration. */
                    if (!CertDeleteCertificateFromStore(c)) {
                        fprintf(stderr, "cannot delete a certificate (%lu)\n", GetLastError());
                        rc = 1;
                    }
                    deleted = 1;
                    break;
                }
            }
        }
    }
    if (cert != NULL) {
        CertFreeCertificateContext(cert);
    }
    CertCloseStore(store, 0);
    return rc;
}
