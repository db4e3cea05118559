#ifndef PINGCLI_CTPM_OBJECTS_H
#define PINGCLI_CTPM_OBJECTS_H
/* The TPM objects pingcli makes and uses, through the table shim.h loads: the storage primary key,
   signing keys, sealed data objects, their blobs, signatures and public keys. Included by shim.h. */

/* The storage primary key under the owner hierarchy: the TCG's ECC P-256 SRK template (restricted
   decrypt, AES-128-CFB), the same key every time from the same TPM (its owner seed). */
static inline TSS2_RC pingcli_tpm_primary(pingcli_tpm_connection *connection, ESYS_TR *handle) {
    TPM2B_SENSITIVE_CREATE sensitive;
    memset(&sensitive, 0, sizeof sensitive);
    TPM2B_PUBLIC tmpl;
    memset(&tmpl, 0, sizeof tmpl);
    tmpl.publicArea.type = TPM2_ALG_ECC;
    tmpl.publicArea.nameAlg = TPM2_ALG_SHA256;
    tmpl.publicArea.objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
        TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA | TPMA_OBJECT_RESTRICTED |
        TPMA_OBJECT_DECRYPT;
    TPMS_ECC_PARMS *ecc = &tmpl.publicArea.parameters.eccDetail;
    ecc->symmetric.algorithm = TPM2_ALG_AES;
    ecc->symmetric.keyBits.aes = 128;
    ecc->symmetric.mode.aes = TPM2_ALG_CFB;
    ecc->scheme.scheme = TPM2_ALG_NULL;
    ecc->curveID = TPM2_ECC_NIST_P256;
    ecc->kdf.scheme = TPM2_ALG_NULL;
    tmpl.publicArea.unique.ecc.x.size = 32;
    tmpl.publicArea.unique.ecc.y.size = 32;
    TPM2B_DATA outside;
    memset(&outside, 0, sizeof outside);
    TPML_PCR_SELECTION pcrs;
    memset(&pcrs, 0, sizeof pcrs);
    return pingcli_tpm_table()->create_primary(connection->esys, ESYS_TR_RH_OWNER, ESYS_TR_PASSWORD, ESYS_TR_NONE,
        ESYS_TR_NONE, &sensitive, &tmpl, &outside, &pcrs, handle, NULL, NULL, NULL, NULL);
}

/* Writes `pub` then `priv` in the TPM's own marshalled form into `blob`. */
static inline TSS2_RC pingcli_tpm_marshal(const TPM2B_PUBLIC *pub, const TPM2B_PRIVATE *priv, uint8_t *blob,
    size_t capacity, size_t *length) {
    pingcli_tpm_api *api = pingcli_tpm_table();
    size_t offset = 0;
    TSS2_RC rc = api->public_marshal(pub, blob, capacity, &offset);
    if (rc == TSS2_RC_SUCCESS) rc = api->private_marshal(priv, blob, capacity, &offset);
    *length = offset;
    return rc;
}

static inline TSS2_RC pingcli_tpm_unmarshal(const uint8_t *blob, size_t length, TPM2B_PUBLIC *pub,
    TPM2B_PRIVATE *priv) {
    pingcli_tpm_api *api = pingcli_tpm_table();
    size_t offset = 0;
    memset(pub, 0, sizeof *pub);
    memset(priv, 0, sizeof *priv);
    if (api->public_unmarshal(blob, length, &offset, pub) != TSS2_RC_SUCCESS) return PINGCLI_TPM_RC_BLOB;
    if (api->private_unmarshal(blob, length, &offset, priv) != TSS2_RC_SUCCESS) return PINGCLI_TPM_RC_BLOB;
    return offset == length ? TSS2_RC_SUCCESS : PINGCLI_TPM_RC_BLOB;
}

/* Creates an object under `parent` from `tmpl` with authorisation value `auth` (and, for a sealed
   data object, `data` as its sensitive part); its wrapped blobs go to `blob`. */
static inline TSS2_RC pingcli_tpm_create_object(pingcli_tpm_connection *connection, ESYS_TR parent,
    const TPM2B_PUBLIC *tmpl, const uint8_t *auth, size_t auth_length, const uint8_t *data, size_t data_length,
    uint8_t *blob, size_t capacity, size_t *length) {
    TPM2B_SENSITIVE_CREATE sensitive;
    memset(&sensitive, 0, sizeof sensitive);
    if (auth_length > sizeof sensitive.sensitive.userAuth.buffer) return PINGCLI_TPM_RC_SPACE;
    if (data_length > sizeof sensitive.sensitive.data.buffer) return PINGCLI_TPM_RC_SPACE;
    sensitive.sensitive.userAuth.size = (UINT16)auth_length;
    if (auth_length > 0) memcpy(sensitive.sensitive.userAuth.buffer, auth, auth_length);
    sensitive.sensitive.data.size = (UINT16)data_length;
    if (data_length > 0) memcpy(sensitive.sensitive.data.buffer, data, data_length);
    TPM2B_DATA outside;
    memset(&outside, 0, sizeof outside);
    TPML_PCR_SELECTION pcrs;
    memset(&pcrs, 0, sizeof pcrs);
    TPM2B_PRIVATE *out_private = NULL;
    TPM2B_PUBLIC *out_public = NULL;
    pingcli_tpm_api *api = pingcli_tpm_table();
    TSS2_RC rc = api->create(connection->esys, parent, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &sensitive,
        tmpl, &outside, &pcrs, &out_private, &out_public, NULL, NULL, NULL);
    memset(&sensitive, 0, sizeof sensitive);
    if (rc == TSS2_RC_SUCCESS) rc = pingcli_tpm_marshal(out_public, out_private, blob, capacity, length);
    api->free(out_private);
    api->free(out_public);
    return rc;
}

/* A signing key: ECC NIST P-256 with ECDSA-SHA256 (rsa 0), or RSA 2048 with RSASSA-PKCS1-v1_5-SHA512
   (rsa 1). With `dictionary_attack` its authorisation (the PIN) counts against the TPM's lockout. */
static inline TSS2_RC pingcli_tpm_create_signing_key(pingcli_tpm_connection *connection, ESYS_TR parent, int rsa,
    int dictionary_attack, const uint8_t *auth, size_t auth_length, uint8_t *blob, size_t capacity, size_t *length) {
    TPM2B_PUBLIC tmpl;
    memset(&tmpl, 0, sizeof tmpl);
    tmpl.publicArea.nameAlg = TPM2_ALG_SHA256;
    tmpl.publicArea.objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
        TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_SIGN_ENCRYPT |
        (dictionary_attack ? 0 : TPMA_OBJECT_NODA);
    if (rsa) {
        tmpl.publicArea.type = TPM2_ALG_RSA;
        TPMS_RSA_PARMS *parameters = &tmpl.publicArea.parameters.rsaDetail;
        parameters->symmetric.algorithm = TPM2_ALG_NULL;
        parameters->scheme.scheme = TPM2_ALG_RSASSA;
        parameters->scheme.details.rsassa.hashAlg = TPM2_ALG_SHA512;
        parameters->keyBits = 2048;
        parameters->exponent = 0;
    } else {
        tmpl.publicArea.type = TPM2_ALG_ECC;
        TPMS_ECC_PARMS *parameters = &tmpl.publicArea.parameters.eccDetail;
        parameters->symmetric.algorithm = TPM2_ALG_NULL;
        parameters->scheme.scheme = TPM2_ALG_ECDSA;
        parameters->scheme.details.ecdsa.hashAlg = TPM2_ALG_SHA256;
        parameters->curveID = TPM2_ECC_NIST_P256;
        parameters->kdf.scheme = TPM2_ALG_NULL;
    }
    return pingcli_tpm_create_object(connection, parent, &tmpl, auth, auth_length, NULL, 0, blob, capacity, length);
}

/* A sealed data object holding `data` (at most 128 bytes), no authorisation of its own: only this TPM,
   under its owner hierarchy's storage key, can unseal it. */
static inline TSS2_RC pingcli_tpm_seal(pingcli_tpm_connection *connection, ESYS_TR parent, const uint8_t *data,
    size_t data_length, uint8_t *blob, size_t capacity, size_t *length) {
    TPM2B_PUBLIC tmpl;
    memset(&tmpl, 0, sizeof tmpl);
    tmpl.publicArea.type = TPM2_ALG_KEYEDHASH;
    tmpl.publicArea.nameAlg = TPM2_ALG_SHA256;
    tmpl.publicArea.objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
        TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA;
    tmpl.publicArea.parameters.keyedHashDetail.scheme.scheme = TPM2_ALG_NULL;
    return pingcli_tpm_create_object(connection, parent, &tmpl, NULL, 0, data, data_length, blob, capacity, length);
}

/* Loads the object whose blobs `pingcli_tpm_create_object` wrote, under `parent`. */
static inline TSS2_RC pingcli_tpm_load_object(pingcli_tpm_connection *connection, ESYS_TR parent, const uint8_t *blob,
    size_t length, ESYS_TR *handle) {
    TPM2B_PUBLIC pub;
    TPM2B_PRIVATE priv;
    TSS2_RC rc = pingcli_tpm_unmarshal(blob, length, &pub, &priv);
    if (rc != TSS2_RC_SUCCESS) return rc;
    return pingcli_tpm_table()->load(connection->esys, parent, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &priv,
        &pub, handle);
}

static inline TSS2_RC pingcli_tpm_unseal(pingcli_tpm_connection *connection, ESYS_TR handle, uint8_t *data,
    size_t capacity, size_t *length) {
    TPM2B_SENSITIVE_DATA *out = NULL;
    pingcli_tpm_api *api = pingcli_tpm_table();
    TSS2_RC rc = api->unseal(connection->esys, handle, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &out);
    if (rc != TSS2_RC_SUCCESS) return rc;
    if (out->size > capacity) {
        rc = PINGCLI_TPM_RC_SPACE;
    } else {
        memcpy(data, out->buffer, out->size);
        *length = out->size;
    }
    memset(out->buffer, 0, sizeof out->buffer);
    api->free(out);
    return rc;
}

/* Signs the SHA-256 (ECDSA) or SHA-512 (RSASSA) `digest` with the loaded key, its authorisation `auth`;
   writes R || S (each left-padded to 32 bytes, as JWS wants, RFC 7518 §3.4) or the RSA signature. */
static inline TSS2_RC pingcli_tpm_sign(pingcli_tpm_connection *connection, ESYS_TR handle, const uint8_t *auth,
    size_t auth_length, const uint8_t *digest, size_t digest_length, uint8_t *signature, size_t capacity,
    size_t *length) {
    pingcli_tpm_api *api = pingcli_tpm_table();
    TPM2B_AUTH value;
    memset(&value, 0, sizeof value);
    if (auth_length > sizeof value.buffer || digest_length > sizeof(((TPM2B_DIGEST *)0)->buffer)) return PINGCLI_TPM_RC_SPACE;
    value.size = (UINT16)auth_length;
    if (auth_length > 0) memcpy(value.buffer, auth, auth_length);
    TSS2_RC rc = api->set_auth(connection->esys, handle, &value);
    memset(&value, 0, sizeof value);
    if (rc != TSS2_RC_SUCCESS) return rc;
    TPM2B_DIGEST hash;
    memset(&hash, 0, sizeof hash);
    hash.size = (UINT16)digest_length;
    memcpy(hash.buffer, digest, digest_length);
    TPMT_SIG_SCHEME scheme;
    memset(&scheme, 0, sizeof scheme);
    scheme.scheme = TPM2_ALG_NULL; /* the key's own scheme */
    TPMT_TK_HASHCHECK validation;
    memset(&validation, 0, sizeof validation);
    validation.tag = TPM2_ST_HASHCHECK;
    validation.hierarchy = TPM2_RH_NULL;
    TPMT_SIGNATURE *out = NULL;
    rc = api->sign(connection->esys, handle, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &hash, &scheme, &validation,
        &out);
    if (rc != TSS2_RC_SUCCESS) return rc;
    if (out->sigAlg == TPM2_ALG_ECDSA) {
        TPM2B_ECC_PARAMETER *r = &out->signature.ecdsa.signatureR, *s = &out->signature.ecdsa.signatureS;
        if (capacity < 64 || r->size > 32 || s->size > 32) {
            rc = PINGCLI_TPM_RC_SPACE;
        } else {
            memset(signature, 0, 64);
            memcpy(signature + 32 - r->size, r->buffer, r->size);
            memcpy(signature + 64 - s->size, s->buffer, s->size);
            *length = 64;
        }
    } else if (out->sigAlg == TPM2_ALG_RSASSA) {
        TPM2B_PUBLIC_KEY_RSA *sig = &out->signature.rsassa.sig;
        if (sig->size > capacity) {
            rc = PINGCLI_TPM_RC_SPACE;
        } else {
            memcpy(signature, sig->buffer, sig->size);
            *length = sig->size;
        }
    } else {
        rc = PINGCLI_TPM_RC_BLOB;
    }
    api->free(out);
    return rc;
}

/* The pub key in `blob`: ECC x and y (32 bytes each) or RSA n and e (the TPM's 0 meaning 65537). */
static inline TSS2_RC pingcli_tpm_public_key(const uint8_t *blob, size_t length, int *rsa, uint8_t *first,
    size_t *first_length, uint8_t *second, size_t *second_length) {
    TPM2B_PUBLIC pub;
    TPM2B_PRIVATE priv;
    TSS2_RC rc = pingcli_tpm_unmarshal(blob, length, &pub, &priv);
    if (rc != TSS2_RC_SUCCESS) return rc;
    if (pub.publicArea.type == TPM2_ALG_ECC) {
        TPMS_ECC_POINT *point = &pub.publicArea.unique.ecc;
        if (point->x.size > 32 || point->y.size > 32) return PINGCLI_TPM_RC_BLOB;
        memset(first, 0, 32);
        memset(second, 0, 32);
        memcpy(first + 32 - point->x.size, point->x.buffer, point->x.size);
        memcpy(second + 32 - point->y.size, point->y.buffer, point->y.size);
        *first_length = 32;
        *second_length = 32;
        *rsa = 0;
    } else if (pub.publicArea.type == TPM2_ALG_RSA) {
        TPM2B_PUBLIC_KEY_RSA *modulus = &pub.publicArea.unique.rsa;
        if (modulus->size > 512) return PINGCLI_TPM_RC_BLOB;
        memcpy(first, modulus->buffer, modulus->size);
        *first_length = modulus->size;
        UINT32 exponent = pub.publicArea.parameters.rsaDetail.exponent;
        if (exponent == 0) exponent = 65537;
        size_t count = 0;
        for (int shift = 24; shift >= 0; shift -= 8) {
            uint8_t byte = (uint8_t)(exponent >> shift);
            if (count == 0 && byte == 0) continue;
            second[count++] = byte;
        }
        *second_length = count;
        *rsa = 1;
    } else {
        return PINGCLI_TPM_RC_BLOB;
    }
    return TSS2_RC_SUCCESS;
}

#endif
