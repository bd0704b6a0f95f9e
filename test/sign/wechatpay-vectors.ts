/**
 * Published test vectors of the WeChat Pay API v3 SDKs, whose signing scheme is the same as the
 * platform's (five request lines, three response and callback lines, SHA256 with RSA 2048,
 * PKCS#1 v1.5, base64): keys, messages and expected signatures copied as test data, each with
 * the repository, commit and file it comes from. PKCS#1 v1.5 is deterministic, so signing
 * must reproduce each signature byte for byte. `golden-wechatpay.test.ts` uses them.
 * Only data is copied here, no code. The wechatpay-go key's armour reads "TESTING KEY" in
 * its source (to keep secret scanners quiet); it is written back as PRIVATE KEY, as that test does.
 */

/** A key pair of one SDK's test suite: the private key and the public key or certificate it publishes. */
export interface VectorKeys {
  source: string;
  privateKey: string;
  publicKey: string;
}

export const vectorKeys: Record<'gunsluo' | 'wechatpayGo' | 'wechatpayJava', VectorKeys> = {
  gunsluo: {
    source:
      'gunsluo/wechatpay-go@599175d35ca6293ec22478e263fd538eff077603 test_fixtures/mock_private_key_pkcs8.pem, test_fixtures/mock_cert.pem',
    privateKey:
      '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCprsmcXPHqLtnP\noPDGUoMULK2WOo5FW8c72Svnqn/4aXPaJhlOtPxtX2frqIhTjwcOs6hNm3XFTGBL\nMrdB94YQvj+Q7P12GNmxXG+9Ms+uUyJToYjlYDAG6UFKE10Jkm9cDGuLSkekU1Ao\nrKE1G1wndH37w4AzVXoGBQ3NIiyW8jIm8Zi3/WNCVpHUoXYUuyhFEZ23fXytnps4\nhARgg6NvPncIKtWvlUh85ZVOSsqc1T8dFaeDRXaj7r3jdJJ74tsGRMvZyUipJXyE\n3uR2QkrGyia+0phDpC6zeMMpP+MQO9ohh+xQWBCeyvQjjnOPAlGThl+ThfXImU30\nHL17oHdBAgMBAAECggEADm6FSz1Efgx6DgS8NcHy0BZ0tSBJ1XBW46o2579Cnxgo\n+FbhNCaEibDhn9N3tNOnYAK7v84HGD7EueCYYY3x4x6rPWJKtG6spT8dadQWgdck\nRkSo5glmTFAuc2RuN1AzFHsh8njg2wMTAEKee2vWTKzFwlIAZ11PwY9Qey/65uOT\nBi8q1Rssu6xofNadO5MbqMJ1Tl8DDIaLGnzTzbHrk9thBUo1FwFjJWTVI7nz2En4\nYc/G1/LQJfiQ31F+lkL3j6ABRJqtsgb07r9H/hT6+fd1hGDt2qKuS+E1mLDp9fHw\nn6UyS4HyB7DA/XtFZ9z0VtAlmcGoUkyJLtXjEmwsGQKBgQDeCtE3spULpC7VPqk1\nxv034C6zybZ7y8kSKwRvyYwkzdgSRgVaKsTVb8RNYor8hoGrVgdXFqQUI8O/v1cN\n9wFoGYJT0LHre/YzOg31TkQkBfHHCFH/L50uOJcIQueftctz5Bwj6bJO/ih5iIAK\nyjrHse4PdIiEJfz2D9hc4wnxrwKBgQDDogrWlUCTj2fvmZfkWR3Hbs0kIHd7zjIk\nbJJONGtD8gE4i562tajC1mKoQEwt4YSwWsBkGAw1LhvMROQFT6AOaIIhHNex1Z3t\nc2gAdEeWOMmzZnnhwWzTiYJomixrFkmEwT3EJK89GO3E0FH5S+G1P1tNXq38Vpty\n1YVqOgMSDwKBgFrzuWGEQDMljJ2C7lL98KlbpiW1AY/SGMndXxLfTw2gV9qcXgLi\nNABtqM4+CEqKWkExmw4cUxeA0uUPXnx06lmW4WCtwsN/4oh3RlJuPdE3siLiEJxk\nB5FwUsVqinBMSktta+12A7kBuNiXhkNlNRCpnKcuB+GBog20zd62jVM3AoGBALcA\nzFazQ7dFfRq7eUUYwCyhT7Et1dewqWM9VRdnHbhvmAjHQu7zvCyW069Ehn6c6bz3\nB+YaQME2orZQ82SsebNAvAoxquwmQhevz2gtXhH+iWASyo0Onbi8d4tWPZrnPFq9\nUgQ7tNnYigOEREqKW1drLwOPP/4/Hicr6iPWpKytAoGAEQ6J/RB/olEAC46ACoFo\nFBgA+GUbDB0xBcA2inEt3q//208YMkjnKM871n89HpAgms5xrK32T69lduebk7Ar\n9wWvkJVUwI9VDXomCFQqtiGzHlTl1Xq31BfeIDyq1ayQmTkRpRqIagbDZVtM+ha/\n0I2SEzTObt07wcYcYG2Chvg=\n-----END PRIVATE KEY-----\n',
    publicKey:
      '-----BEGIN CERTIFICATE-----\nMIIDFDCCAfwCCQCa1ZlTrfG6uzANBgkqhkiG9w0BAQUFADBMMQswCQYDVQQGEwJD\nTjELMAkGA1UECAwCU0MxCzAJBgNVBAcMAkNEMQowCAYDVQQKDAFUMQowCAYDVQQL\nDAFUMQswCQYDVQQDDAJDTjAeFw0yMTAxMjUxMDEzMzBaFw0zMTAxMjMxMDEzMzBa\nMEwxCzAJBgNVBAYTAkNOMQswCQYDVQQIDAJTQzELMAkGA1UEBwwCQ0QxCjAIBgNV\nBAoMAVQxCjAIBgNVBAsMAVQxCzAJBgNVBAMMAkNOMIIBIjANBgkqhkiG9w0BAQEF\nAAOCAQ8AMIIBCgKCAQEAqa7JnFzx6i7Zz6DwxlKDFCytljqORVvHO9kr56p/+Glz\n2iYZTrT8bV9n66iIU48HDrOoTZt1xUxgSzK3QfeGEL4/kOz9dhjZsVxvvTLPrlMi\nU6GI5WAwBulBShNdCZJvXAxri0pHpFNQKKyhNRtcJ3R9+8OAM1V6BgUNzSIslvIy\nJvGYt/1jQlaR1KF2FLsoRRGdt318rZ6bOIQEYIOjbz53CCrVr5VIfOWVTkrKnNU/\nHRWng0V2o+6943SSe+LbBkTL2clIqSV8hN7kdkJKxsomvtKYQ6Qus3jDKT/jEDva\nIYfsUFgQnsr0I45zjwJRk4Zfk4X1yJlN9By9e6B3QQIDAQABMA0GCSqGSIb3DQEB\nBQUAA4IBAQCILfHUgKMw6DhfaErJ6Gc/qmvNoSxyVsFw4jOC1HvaK/c6rg633Hso\nNZBS6et56aTxLbaGyWJDhLnT0NxBhL+B/pSeUbb6jqNVU+xDjy1wEUV14BknM5iI\nYoW/kG3rZpdON9OyPEpCX7F46Ivsrdzl+MdSr6+oCOtDm9LtYuR8irxm2x92fUCG\n/r05oVhiOX/eYZxQYrmpaqcyE5pwD1CiVmhyeNmhzkt68Z+h0gykacPdYkoLwPrq\nG49eef0cMTlQlGn8hFdoN45Jf3wA4+0D7rsROLjj67Kdz2XY/OdGVxmBqrKbmRzA\neofjh+kZhJAh/H+RSEO7LnTgQELm3gFZ\n-----END CERTIFICATE-----\n',
  },
  wechatpayGo: {
    source:
      'wechatpay-apiv3/wechatpay-go@6dbd7ce2ec5967ac2de5fa053479b411967b9c29 utils/sign_test.go testAlgorithmPrivateKeyStr, core/auth/verifiers/sha256withrsa_pubkey_verifier_test.go testPubKey',
    privateKey:
      '-----BEGIN PRIVATE KEY-----\nMIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQDZUJN33V+dSfvd\nfL0Mu+39XrZNXFFMQSy1V15FpncHeV47SmV0TzTqZc7hHB0ddqAdDi8Z5k3TKqb7\n6sOwYr5TcAfuR6PIPaleyE0/0KrljBum2Isa2Nyq7Dgc3ElBQ6YN4l/a+DpvKaz1\nFSKmKrhLNskqokWVSlu4g8OlKlbPXQ9ibII14MZRQrrkTmHYHzfi7GXXM0thAKuR\n0HNvyhTHBh4/lrYM3GaMvmWwkwvsMavnOex6+eioZHBOb1/EIZ/LzC6zuHArPpyW\n3daGaZ1rtQB1vVzTyERAVVFsXXgBHvfFud3w3ShsJYk8JvMwK2RpJ5/gV0QSARcm\nLDRUAlPzAgMBAAECggEBAMc7rDeUaXiWv6bMGbZ3BTXpg1FhdddnWUnYE8HfX/km\nOFI7XtBHXcgYFpcjYz4D5787pcsk7ezPidAj58zqenuclmjKnUmT3pfbI5eCA2v4\nC9HnbYDrmUPK1ZcADtka4D6ScDccpNYNa1g2TFHzkIrEa6H+q7S3O2fqxY/DRVtN\n0JIXalBb8daaqL5QVzSmM2BMVnHy+YITJWIkP2a3pKs9C0W65JGDsnG0wVrHinHF\n+cnhFZIbaPEI//DAFMc9NkrWOKVRTEgcCUxCFaHOZVNxDWZD7A2ZfJB2rK6eg//y\ngEiFDR2h6mTaDowMB4YF2n2dsIO4/dCG8vPHI20jn4ECgYEA/ZGu6lEMlO0XZnam\nAZGtiNgLcCfM/C2ZERZE7QTRPZH1WdK92Al9ndldsswFw4baJrJLCmghjF/iG4zi\nhhBvLnOLksnZUfjdumxoHDWXo2QBWbI5QsWIE7AuTiWgWj1I7X4fCXSQf6i+M/y2\n6TogQ7d0ANpZFyOkTNMn/tiJvLECgYEA22XqlamG/yfAGWery5KNH2DGlTIyd6xJ\nWtJ9j3jU99lZ0bCQ5xhiBbU9ImxCi3zgTsoqLWgA/p00HhNFNoUcTl9ofc0G3zwT\nD1y0ZzcnVKxGJdZ6ohW52V0hJStAigtjYAsUgjm7//FH7PiQDBDP1Wa6xSRkDQU/\naSbQxvEE8+MCgYEA3bb8krW7opyM0XL9RHH0oqsFlVO30Oit5lrqebS0oHl3Zsr2\nZGgoBlWBsEzk3UqUhTFwm/DhJLTSJ/TQPRkxnhQ5/mewNhS9C7yua7wQkzVmWN+V\nYeUGTvDGDF6qDz12/vJAgSwDDRym8x4NcXD5tTw7mmNRcwIfL22SkysThIECgYAV\nBgccoEoXWS/HP2/u6fQr9ZIR6eV8Ij5FPbZacTG3LlS1Cz5XZra95UgebFFUHHtC\nEY1JHJY7z8SWvTH8r3Su7eWNaIAoFBGffzqqSVazfm6aYZsOvRY6BfqPHT3p/H1h\nTq6AbBffxrcltgvXnCTORjHPglU0CjSxVs7awW3AEQKBgB5WtaC8VLROM7rkfVIq\n+RXqE5vtJfa3e3N7W3RqxKp4zHFAPfr82FK5CX2bppEaxY7SEZVvVInKDc5gKdG/\njWNRBmvvftZhY59PILHO2X5vO4FXh7suEjy6VIh0gsnK36mmRboYIBGsNuDHjXLe\nBDa+8mDLkWu5nHEhOxy2JJZl\n-----END PRIVATE KEY-----\n',
    publicKey:
      '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA2VCTd91fnUn73Xy9DLvt\n/V62TVxRTEEstVdeRaZ3B3leO0pldE806mXO4RwdHXagHQ4vGeZN0yqm++rDsGK+\nU3AH7kejyD2pXshNP9Cq5YwbptiLGtjcquw4HNxJQUOmDeJf2vg6byms9RUipiq4\nSzbJKqJFlUpbuIPDpSpWz10PYmyCNeDGUUK65E5h2B834uxl1zNLYQCrkdBzb8oU\nxwYeP5a2DNxmjL5lsJML7DGr5znsevnoqGRwTm9fxCGfy8wus7hwKz6clt3Whmmd\na7UAdb1c08hEQFVRbF14AR73xbnd8N0obCWJPCbzMCtkaSef4FdEEgEXJiw0VAJT\n8wIDAQAB\n-----END PUBLIC KEY-----\n',
  },
  wechatpayJava: {
    source:
      'wechatpay-apiv3/wechatpay-java@1dab7bec717989e4a4f006d2469c3eebe9eabba7 core/src/test/resources/merchant_private_key.pem, core/src/test/resources/merchant_certificate.pem',
    privateKey:
      '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCaZzehUwzcxdLg\nGn/UNryHLdX0yBvCqD0p92/BdlCIBi0dmzZzrfc+FF0xK70AP9b2+Ry5q+zXUU+d\nPucJmgwABiZ+Lte+4euMxqPCEkdEu9lyiphalpoaOVPbmDNatzq9k5a/P454QRWM\ndkLUJZCeoL9bF2Gn/2+wWEw3sL8zFFcOM8Jr1PdOLmAx+h7pf/87jcmXXCm+SZqw\n5MtILKQi9zHWujYdMA0IcYNeQaNl1h/NUnungdIHKaaU+17wCXqTcZsipAGoqfqr\nHx/sr30ZszOdHYOvFNiB+rhEldBGSLWwSYE6LFkbP9GdQWKIQCip3E5dLj5ZFkDe\nOv4Hekf9AgMBAAECggEAEsVsqnS90hNMzUj7dHHJHsgQRGeVlGc+tFzsHcGEDd1u\nW7SUfKDQN6BjKgiuvBqGyFTFzL7dltnAS5YroWu0fMZCpMGOIhs2N1Go8/2j43PQ\n/k9iMVUw2/JPQxmwWJ2BCy4nvA1+hRkohQCVpFQCzn4tdWYUzcdMrUw2y+h1fkCQ\n5MJn7iw9QHKQSeFeCl1/xq2PvOtiK/r1LsckyKNSSNgFEfxyWYaKbnK9OH+5rFKQ\nQuI+fnAgE6QiLvmW0NqqZUSfqkLKi/FSWI13ns0H6OxjqpLX8VQ6+Cw5qq8fCuv2\ngzkVk8A85ZTCQL/q9qDilt9uAE0bE924WU+n2zkBoQKBgQDQvIufN6fKpm27k4yx\nRNV23fj9nojewaVqGg/3yuyiAu6w/yFcTXkGMVOicTYraX2mliHTIoyP8ywKGqqa\nXS/Kk3tGD1K04KriPiFwWXU54+DmOJEyYoJlmXOm4BoZ1lW0z5HECC9eO/VPSDY+\nzQdRYSCTdSHEgYuOGQSLPPwdrQKBgQC9XTrvkUkIthayc+4IhV6m4kT8uwzuoc3f\nuaJhFFcpLKqzcpQBH71TYCXfqkucnO0no0sGerBB4HJQoVRK+jsdhNZhcw1JKLau\nE+YlCSRLZ62vyzBTzLw1fnFBp82z1VZBujCrMP+DdwXBTsnkRaUtmDEG0s6YsCwd\nfayF0PB9kQKBgAHc/P4R2ByV+brH6WSXsbQa7SMObDhY0CovS18x34Tes9S+okSZ\nqG/mttFnY01l5qo7AthIoaqTSBxa+pTgKhIL2PjaICnfK4dTeKbxFXvLzfEgJiOl\n/3X6ta6Sp4j9gcxYYfu2+v1DWcA4a8uJtvwB+vF2BTQk1+MP1BuOEs4NAoGBAK3y\n+HKdOUPBUPQ4vk4hhaMzcz/d67FB/UYo1lrrPm3aVCxnckHeECKIzgG6A58oIEor\nHH4lMcgyD5C1wiLl3mvtXKlD8M5lkfoy2VToIukJomk783bnOXTCY/N12+X4cTYL\nfS2k4vK24RiD8b25pFRP26ly+MkV/FBS46pBFsmhAoGAOjfl2vGyJo8CRQ/HBLsS\nBw2VQgRvZU7mom1qa2SKA2VlsFz/aiBCcT8XEsTJxkVYkvbdfbyx2Z9kCbI6Y2cz\nZ+M/0rQSRv/eOiBW7anBImZMg6WcYNfRfumkuNq+6fcCKKtZuyrd7ZFc0jTcVasI\nxNJ1TM6J6kRQdn5O6Ot4ERw=\n-----END PRIVATE KEY-----\n',
    publicKey:
      '-----BEGIN CERTIFICATE-----\nMIIDrTCCApWgAwIBAgIUXxxy4qiTG3Ki4Tr43ukkces5cRUwDQYJKoZIhvcNAQEL\nBQAwZjELMAkGA1UEBhMCQ04xEjAQBgNVBAgMCUd1YW5nZG9uZzERMA8GA1UEBwwI\nc2hlbnpoZW4xITAfBgNVBAoMGEludGVybmV0IFdpZGdpdHMgUHR5IEx0ZDENMAsG\nA1UEAwwEdGVzdDAeFw0yMjA1MTAwMTU3MTBaFw0yNTA1MDkwMTU3MTBaMGYxCzAJ\nBgNVBAYTAkNOMRIwEAYDVQQIDAlHdWFuZ2RvbmcxETAPBgNVBAcMCHNoZW56aGVu\nMSEwHwYDVQQKDBhJbnRlcm5ldCBXaWRnaXRzIFB0eSBMdGQxDTALBgNVBAMMBHRl\nc3QwggEiMA0GCSqGSIb3DQEBAQUAA4IBDwAwggEKAoIBAQCaZzehUwzcxdLgGn/U\nNryHLdX0yBvCqD0p92/BdlCIBi0dmzZzrfc+FF0xK70AP9b2+Ry5q+zXUU+dPucJ\nmgwABiZ+Lte+4euMxqPCEkdEu9lyiphalpoaOVPbmDNatzq9k5a/P454QRWMdkLU\nJZCeoL9bF2Gn/2+wWEw3sL8zFFcOM8Jr1PdOLmAx+h7pf/87jcmXXCm+SZqw5MtI\nLKQi9zHWujYdMA0IcYNeQaNl1h/NUnungdIHKaaU+17wCXqTcZsipAGoqfqrHx/s\nr30ZszOdHYOvFNiB+rhEldBGSLWwSYE6LFkbP9GdQWKIQCip3E5dLj5ZFkDeOv4H\nekf9AgMBAAGjUzBRMB0GA1UdDgQWBBQQicr3Vq+2NG2ykH0nxQxsct1RtTAfBgNV\nHSMEGDAWgBQQicr3Vq+2NG2ykH0nxQxsct1RtTAPBgNVHRMBAf8EBTADAQH/MA0G\nCSqGSIb3DQEBCwUAA4IBAQCH//ZlSAbc6xRlwKwwfbHMsVpAfo/p+Y3397Gi4sR8\nRbsW6a3ezXhbiSGiJxDnerx9Cmp4K6U+D3Fl0N9K6CDWfwpGNiZvjmCxtM/wb7dM\nu+4U0MXJGBcaePj4mtV/+qPxSWDCQ+PR5OcYRQnac9LfrffTuejQx5aw9FcD7egI\nSYfgkZ/wgHyQcZyhh8s6DuigpEaVGMLLoWDZGJ3D+rt4kXk9y5+03KBB2vobyl6P\n+PDgaYrlNR/UQMnKMdkgWp7bebmrcXte32/6FAwK3SuHZOSkteDtRCYhYfG5SGSr\ngo1ujfIK1zIFyPkKKnsgTUPJXwdC7LI+ZqJuWTyVTNj6\n-----END CERTIFICATE-----\n',
  },
};

/** One vector: the signed parts and the published signature. */
export type Vector = { name: string; source: string; keys: keyof typeof vectorKeys; signature: string } & (
  | { kind: 'request'; method: string; url: string; timestamp: string; nonce: string; body: string }
  | { kind: 'response' | 'callback'; timestamp: string; nonce: string; body: string }
  | { kind: 'raw'; message: string }
);

export const vectors: Vector[] = [
  {
    name: 'request: POST /v3/pay/transactions/native',
    source: 'gunsluo/wechatpay-go@599175d35ca6293ec22478e263fd538eff077603 sign/sign_test.go TestGenerateSignature',
    keys: 'gunsluo',
    kind: 'request',
    method: 'POST',
    url: 'https://api.mch.weixin.qq.com/v3/pay/transactions/native',
    timestamp: '1611368330',
    nonce: 'AF1404CC2980FB414C99C0B98883BD42',
    body: '{"appid":"wx81be3101902f7cb2","mchid":"1601959334","description":"for testing","out_trade_no":"S20210124144305172434","time_expire":"2021-01-24T14:53:05+08:00","attach":"cipher code","notify_url":"https://luoji.live/notify","amount":{"total":1,"currency":"CNY"},"detail":{},"scene_info":{"payer_client_ip":"","store_info":{"id":""}}}',
    signature:
      'ItuRCG6nAf6ZUi5C5LPa0beCGrG7+G4NdaCHLTmym+UzuZHFgFeqRZ4zKQ0n93qehchFWfQ7s00pgABYvXcOMsV1ld7AUjDTZBPucJK6yhFKz9jd20wtRdDG4LRCZcaTowD2f7LtlixFm8F3/YQaBavxiOe54tc3RX/22flYRzy4YFOpBt+bmjSPZIdSFi53323u7cohwvdHwX+avQCtLZKAUNFJIob66u05BbDEITzYuHjakjpb5btvWemjoZBPxkiETzmd4Oa1y2U+rfFCPZyWT4EV7UxHeEizBL8DkubEBD3KXeArqRX6yoMAU4ywmdFeWDbv1EF0Ndy9hiddZQ==',
  },
  {
    name: 'response: platform certificate list',
    source: 'gunsluo/wechatpay-go@599175d35ca6293ec22478e263fd538eff077603 sign/sign_test.go TestVerifySignature',
    keys: 'gunsluo',
    kind: 'response',
    timestamp: '1611501424',
    nonce: '7c6ee840478cacdcf25b8fde1bc492c0',
    body: '{"data":[{"effective_time":"2020-09-17T14:26:23+08:00","encrypt_certificate":{"algorithm":"AEAD_AES_256_GCM","associated_data":"certificate","ciphertext":"evjNpcxpdo0RxJ377B3SWapXayAVofHD6FF7Alzs01qcO2I8qej8qkiWgSIZWBx05InQJEzqCCKpJqWH7cCoV1Kf6lWa5oyQvAUZSxMbfWCSQ24maNz8mkGs41iwUfR36XpiaSAAhNUPuHhvd/VFZuOYUqEFk9C3m8SzbG0ne7zqLLP7oQi42beASVtz3UGIQu9Pcxm7cyJ/L5AUInvpx+Yq638TVq6A99Il3iDRJKL+C4gXMFplFdk0pVFCH3J6eiu0FbKgEO3fWinKxnbZ6sJHR2TkelCV+lsdb/kyctFOS0YIhlhrNyzDN/IeeiOVH9SD5ffuABv5PX7iA4HGCdR1BTBjeUEGWCTW1xWeo3jN9YAfbZxATQY8iL1LTv1Gkdw/510jn7PL89p+tuwyFlyyXosA/3o7o9W1SA4qZFrjFf3diMoEsEnHlxp3Atm81qvJLwbeqhtrtsLjqEM9o3l7j22dZquxahUfAQ8+7pRgX4tmc52OqliCT8bcEnCPjN8jWTu6KG8QT/rWDJk1tI3O+xXsOrxYMO3dStUs2Pv89JRmVFj0uBizT2lBrnFcvY4wshAcILPqt/lSFxaYlwIlOXf2M5NJ1zqjPTk7lvUyKrrmbTAVcp+PtktWMwz3sgslRs3qbLlPdiN9mUBKdVQpoQ9X5zZcBQwtEM0b324bPXi4jl6zRFPHybvPyJ4dUOe9GpGYNM0EXHsnxf7qdhhn8/TSm1yzlCU3Vw8ey4YdApYk03Dxu7497Rp1JVplKOlYx+XJOpcYlWSyNXgq3QlspBZBk5WwqCU4ENtX9VGGtm0FMtcUc0uEeo3WYSYUVkjuBwWGctzyszSi19R1YoG2wezMu48edCuUHM39FFQYDLDfWQ1nKgi7wNtN9EqA6skHOhEYwbe3A+jp3aUBuQH9cYbOq8MS42SzjGRuNmZiUpg+SxreEZ+f/TSdWQeuneHFrzbF+UY7ntNENNg+S6VGnaSlYP5Geg341QefBgfUeHbtcwtwO35J3AqhYEylyl/PqBq4+Nhme+qb66xiMiJ2i1pGfNCLdrh6qxefRGihuNDJyHhG+1V5y1cpUFubugD709C0EQm6Ebp4gQ93eo5ZeuQA80sQ7zVlVq3i2dA/VbdfznSMHytOBxe/5pPAnAXyQvrY6WYYtLie3UEuAAdQkR4SESpTrE0p9LJZUNkGhmYlYMftu1M2+do6LQJAXTO3xQ8ZW7uyKac9ETMRoH/n26Y6pkoCFH58DqxAbAcZc1VMObI+BKTeLr8iIgGP+6MidI8if0HB1n7cNNKPxB5gG7R0jmEPGJMcxL/gQdsXiRvczHLreOj5DWInxYLRvx/9xmwwKaZ0dSCFV+OLC5fyeQxDgZ3XNtC3pXf5ERmcjwmLANWzPj8EDiPIzYmva/qs1Wtrh0xM+fWuJSwRQt1jMxre7WhU3inRHtEvA2+OkTWgVOsZ0VBuc77Z3l53N4pq2ncNCz8ucs3QnU1ilWcNxE19PV1px+4O28EdQd0izFGOZY73/GIl9+KU9Q8OU9/H2IDsqDC1SV9oM7x1JknmhWu6Jc85XIorKA5nw7bfMwyW+GwOn0bkmynbwnDcb4gddmVuxy91bEZoDQeGbq1lU/Z+ydGaEDRmY0u6/1giQjGC5lWPqia8KN5sdPGNYFT2UEifiR3VofoNsXxohjCXxNRX5Sf94VN6i6/U1nLmPRnIwBGrRjINYlQUYuAHiKpwgU7hUnap4+6fWkjlJD5rH1beU4elJCOKrjDnAFJMtukUWTQaasy+TGU1lgjRAa3dy68a4SBoUm0N7VNO3GWod4YE0UALkoB0Cxo4YUdpO1+j3Toa4m+NsGQhyURAJ5ao7Cvf0gTRaFxIU0COUaME2IEwPQ==","nonce":"eabb3e044577"},"expire_time":"2025-09-16T14:26:23+08:00","serial_no":"477ED0046A54F0360A72A63A8F2816312AAEAB53"}]}',
    signature:
      'bmdMjyk86N6+BoI8Sf6WEo0oEAgfbLqyQHop7asqdU8p8/RsnVXSoQzwQsyqSUl0mbOichQYpFHXl1Zk/jTNGclsJ49iLBN49pTlnc6bzFTR1qmMkdFMkZ4a0USLzrE9/m8UOSyEp5gT4X4oRtrYgFI0bMujUqGdIGNPgry8YRXvxAAUnE+9mwCY9LFNZxYk6rfbvmMdIjeQar321cmF63Iyq2Vo9Vb//j7wZB9LS/iGGAjOQ2hj9S79u7A9LIfuZDKG6ENIfCUbXabTpog/zFgksuwf821PH3Hy+/7oNepbDcOHrqJUQZ+lPx7h9jfK+yCTd2Rhf/U4w0z2hMBlzA==',
  },
  {
    name: 'callback: TRANSACTION.SUCCESS (notify_test.go:46)',
    source: 'gunsluo/wechatpay-go@599175d35ca6293ec22478e263fd538eff077603 notify_test.go:46',
    keys: 'gunsluo',
    kind: 'callback',
    timestamp: '1611368330',
    nonce: 'AF1404CC2980FB414C99C0B98883BD42',
    body: '{"id":"b62e271c-3389-58a0-8146-4a704966e8f1","create_time":"2021-01-28T17:07:11+08:00","resource_type":"encrypt-resource","event_type":"TRANSACTION.SUCCESS","summary":"支付成功","resource":{"original_type":"transaction","algorithm":"AEAD_AES_256_GCM","ciphertext":"yuKJXXxnqVMulBUy5NoriSab/S9aen3wXNYLqGdvBfxsWmN9JAFAMXO3LgDFPqNeZMrkSmQyFa981IVxLvWHzwrzlBtJk+hOwnxTgDxc8SsGt39QkRBbfGR8rutMr3Goiq03ygWjMA6I+n6qhqQ/zS0/bMIB1dQoFZBSCKiLp8VHbGDLirh9MqYRa7MKJEYziPF2DmdtRHvXie4AWSxcV6hq8Ufao9FQooLOA2gD/9JA+L6BqquOPOnStExxH26cK7QgFFAf22GP7JKXnMH0LF3lJrK6ZMQ7iTXvVxv/q6j3SwUbyWVKmXdMJTqnXtU4H90DjRC6It4cOavr3Gz6xeVyv4S3i1qdAD8rAqgjjF1QWnUQtIm4/TdOw3ro0L73VI07H8c9O6VX/U0TcGMJJrAKMJ/yBZlD6owliffy/pzceEG/MV27euHDS5VW/m23tokNy2G1XJu1T3sUzEUsNil7vngBLYHGEGNw6brOYxwxXEUI2n0tSJOG8upiSGmN0fOnWbPoN9YqtuIhvY4xKOJpKwQrNJSm+ybNrugAwbLf/HMATxK6dGk9RQK8Nn9PHSRSPmTU5sci6zzFGAEHKQ==","associated_data":"transaction","nonce":"fG1l57vn9BCX"}}',
    signature:
      'Jook1G0Ex2xkvw5isZNY8Pvxj30X6HOCLNwMBh0wpRCU0LMTD+wQqHCENpYcsaMM/6vFMsRXtZnKldRk1dFmzpLOT8Rh1SwfMp/61oz7Eyh9+y1p2QkC2EW9dEnZk3gl7j5WcSsncy8ccM4ohfZVwQLslZwzKKaLxg5F5MTeiP/0ykYdFHOqIKdp9QMlly0Yb9aUXiVe19u3PEIOUkAawr9vD7EL5VHtnuer90ADrO9b+p4MAFxL1QfqshNhb4KeDjyVAzOqHjkThqAeuY1wv8KjoeVpZOxxrdSAoYcek2c2A8ywKWNMZi/k0Wwpu05UN498a39tKdHPZrqb6Qt4ZA==',
  },
  {
    name: 'callback: TRANSACTION.SUCCESS (notify_test.go:127)',
    source: 'gunsluo/wechatpay-go@599175d35ca6293ec22478e263fd538eff077603 notify_test.go:127',
    keys: 'gunsluo',
    kind: 'callback',
    timestamp: '1611368330',
    nonce: 'AF1404CC2980FB414C99C0B98883BD42',
    body: '{"id":"b62e271c-3389-58a0-8146-4a704966e8f1","create_time":"2021-01-28T17:07:11+08:00","resource_type":"encrypt-resource","event_type":"TRANSACTION.SUCCESS","summary":"支付成功","resource":{"original_type":"transaction","algorithm":"AEAD_AES_256_GCM","ciphertext":"yriQVTmulDmba+GD/be3QUMtoDg=","associated_data":"transaction","nonce":"fG1l57vn9BCX"}}',
    signature:
      'K/aIQbi+bDKKC0nFc9/M/nOe2M/nnBaHbYs3Gf7ZzjD6Cq/thfph+0+h+8gzRay91z+f2/ggSQ18+ZxkI/VBpDFWE4ZoPuwoHk4BDvU6gy39Xcb1dcKs3sfjVu3wTyTrWychJ9CwBE9mVjsHlsFFrrz3+Nk+rBwJZp1h1B94PPImxB//bcXKfcBl/TXzDGFyJcgcpiyMwFe9x6EGIhJh51AXVe17W/qUSZtR8YRSaeqHdMasgTBOPLq93QfAkwz7wmxzUYeIMdmYJMU+Arhbc3EdmAnGfSuR2M6Pl65Y867RwgvAegYX2j8B7Xor7B+F+BdPqjg0mkFuvmHESToZSA==',
  },
  {
    name: 'callback: REFUND.SUCCESS (notify_test.go:176)',
    source: 'gunsluo/wechatpay-go@599175d35ca6293ec22478e263fd538eff077603 notify_test.go:176',
    keys: 'gunsluo',
    kind: 'callback',
    timestamp: '1611368330',
    nonce: 'AF1404CC2980FB414C99C0B98883BD42',
    body: '{"id":"9971e868-2144-58dd-99ae-df4c76ccde42","create_time":"2021-02-01T15:13:13+08:00","resource_type":"encrypt-resource","event_type":"REFUND.SUCCESS","summary":"退款成功","resource":{"original_type":"refund","algorithm":"AEAD_AES_256_GCM","ciphertext":"i6LL5pzT9gNoZTx3EtUmdiLPz7cQRJXa6mO+2kZBsn6aU5Rjd/m0+3YLnMXFYT2AKUUr0Iel3iQQw2rN834d305VcR7BQHXaY7qJ2fc0lZSqkx3aszF6yNRQ3rlvHBsqlOjQwPYFydbA0Fu0TO3F3aqbvJfYJ541O/O/EZeYZX31e6nbvY3ZjGGhXnW/CqWYkUSu8v9K3Q/KGP94VVTw/dvqyoOKN9NhGH4YV/62My6HUA6Khf2BQsYhsSqPJ3RzeEZiB6cxwWposXNqtjrwUI+Y7IrlJjwRjg8i0SPyUaDkTEybtdBTFSNzVSt7F5W32qYksgHozjlEIqQ4G/OMZEP+XUelVWeoGXkPgEC6WYHDZixyPlfCLNRxkxkaBhgs2+PKYAVBYtag8Je1/88oQ7Ms+qcUjHTXTRJJgRsBXZLPT20dFDySOOI7iIOkd0V+B8s5/NvUGqiCr3q4kAZDEI9H83qqA0QZvfH5zDr/l5VCh0ko7L8DTibF1w5WcILrnxuJcA==","associated_data":"refund","nonce":"QOXEHLl2XppO"}}',
    signature:
      'fjUjJEN2e60uTygpCUNF+gNbm3dY8DJxyZyL1SSHkbRc4lqmYYyLzlot1PWUvzvYdbGF99SMvAGuigkXuxmgJjaFsQ05uZiK5vUhCpv6hEKEIxQxgYPp5n7wBOZX2VOaKWBQp7F3B/4R8ZZEQ9nPKbrDjUFFu+LFRqA1akmukO5MY1sxXFpxBTrqfesnNQSo7pqjigBufJnh3yjmpUNdXbmDhMIUuAWr0dDNmETeK94B4tFjqF7hGza8/WUzwXj4JTy4ZBz8irgyKX9VimILiEVPB6I3afXptSMvTMlUwBG4gpwLCSgscn+vGKQv2mNCHkPDecl9c3dMbiyTkYtR3A==',
  },
  {
    name: 'callback: REFUND.SUCCESS (notify_test.go:257)',
    source: 'gunsluo/wechatpay-go@599175d35ca6293ec22478e263fd538eff077603 notify_test.go:257',
    keys: 'gunsluo',
    kind: 'callback',
    timestamp: '1611368330',
    nonce: 'AF1404CC2980FB414C99C0B98883BD42',
    body: '{"id":"9971e868-2144-58dd-99ae-df4c76ccde42","create_time":"2021-02-01T15:13:13+08:00","resource_type":"encrypt-resource","event_type":"REFUND.SUCCESS","summary":"退款成功","resource":{"original_type":"refund","algorithm":"AEAD_AES_256_GCM","ciphertext":"i6LL5pzT9gNodJBjZuY19VeNSqXwDhn9gw==","associated_data":"refund","nonce":"QOXEHLl2XppO"}}',
    signature:
      'comFTl4/2gwcIPa9JbBxvNfxfOY7JkQtp7HleoCMw1z+C4VEiCjtwlFTtNJGCp76bQ0ego7Qw+Oxnssk+h90WyGCO2qL4PXE9PkD8D1B4jymITPLNjS8DE/ePL00WTr7Zi4V3xYKukBwVDPCynwZjyDQtK9fi0RBcCT1qcyi0fBO3mHR74qj3YuWZF9GZeMlzDT51tFRtFT8Y+niUrDNinfWYlGJ/JJbci2JP/FlN+A1ZLlppOiJhexxuMcIevlicQNeNt3yD16H8azRi0vr4Q+l0noBsd81ey6yxUZvhIx+RFgjUFChSwwkqZiamEc5bYmaxscIAtTjlmfbm2Vf6w==',
  },
  {
    name: 'response: body of 1805 bytes (client_test.go:566)',
    source: 'gunsluo/wechatpay-go@599175d35ca6293ec22478e263fd538eff077603 client_test.go:566',
    keys: 'gunsluo',
    kind: 'response',
    timestamp: '1611368330',
    nonce: 'AF1404CC2980FB414C99C0B98883BD42',
    body: '{"data":[{"effective_time":"2020-09-17T14:26:23+08:00","encrypt_certificate":{"algorithm":"AEAD_AES_256_GCM","associated_data":"certificate","ciphertext":"/M2eAJyVx/0y8JOErsNEWbYpikwKMS0hDahBYrR9Tnqvaxw/WLMHyLq7G3GUoWx3NSwYZlSZ+1JxAMTd4yge1B8bxY7OLrDkXm+BBDVypy5jCi/gcTQduTJpR4nRcBRYtEIxLGLrVaUXlDjDa4nM0mUPk6XA7AAUUAl3z5lYISapsFYUuHO9splBrmUESHxzRhSfsTyW68ll8o+ND7xA5R94slxzZIVdVg2Tz/3uXi5X1Qu5oi9Dn7pFdHD7++msMB7rgSJUTIFMwZ2GhAX3f/vVWemSMCymPPxzYxdiGFJJ8oBaIn+17pwulmz6NodFS0ilJr9wBs/05gqxe5L6S64ApwXNTfq3YJFVIU6munBaHomRZqsMg3MQlji9yNLBdKO2hk2rq/jCaBLsqcrCHEMEEULA5/1ImeYEkKcX2vIiVtKX8WxxP4M/Gq7btAQZVGzvczopb3wZNu1QLnzC13ov0pB5BPMhrx0tE4rLuZ5d+uzGOwuI8CvqOa+8TQ0DNGNaEA/IPrMJCVvmLrDi/aMQB+P4mO9BhUlfGHwQL7Q0anHzZaGHGkYyEGoTPmqQcY1mRbVcXDpIGn7rfHgiXnQTurB886T//ddhcv1/LQmcohSveZJAltcaDlmeqMgc+bXsOlAy6JNIIVPJ04ysI+V7nc0O4k4A32ZYA1hK52CU1YWz3vMoaaHVr/t6AF3dVWE1CphhNIwGbaz9M1sgEsWwT8LKLG5csgVwG20LO8wmLkxNUQ4fSkMdC+2Qv+rSFd8rlT1j+sYEbPVq6E6URkYPUKMqI1mEEudU1Rx0bE/pjj7+++0gX1H7sHp4+02KLdWS27gptHVXdDjNFPyCEshfVL2B8aEhq8PxSDG5zTqWHrKBAl04WU3kjlSsKZPrpKyhpIrKbEZHcrip3wOGeMf+4XDoZ8Iq8KoM8R6m8wkWi0GAW4G743O44PxHFvljKDIkIQm8gWV37jC3+qb/ZwUDxHONw3tHMH8XWsCVq1KAtKeE/iE9CCmE+ht7K4B+w0DeqKEicm0dkdjuFc9IgFa1W+q0HqGFI2Snd6ZX6crUy1I1vkRTQRj1mqjaP7dFOFV0JMpK/4CKMruZfUilNfOnSoKqHA2jPQ3f4ro0H22bF/PNhOWXp6Tzl5ZVbIFBIMdD9+ocq1lDH7vcBfKVwUltKl7jgI9HlpCDPZp++Mt3C4lPDzP/XrqorJnFBKw8eMBHS7N+jDhzhqJnI3ldwlGxUsqS/hj+jUUPpYINe/UtVwlOBi/tfuEfv47H5YgbP+Y3dz78a6KJUcA7caPSSqX+8LBcwEEZELXR8gU/AxwoDAsHM1pb7wc9fslct+awivfRi47AJtFeeZMGF6bb14VnbzvIZdpZRBIzHlvUqP+t8ZKEUvEJ+lVk7vv0/ySWBZbt0oA5XQ2RVwgzKGOgfMzZafsWAqrq1PGYjJqBbm/hudPtqsBridW/QjoE2Bp+Qnp8mWhdlSP8dgdeefLEeZGUSJx0Tzu2hBveEz7jMNQSOyg8HEE=","nonce":"eabb3e044577"},"expire_time":"2025-09-16T14:26:23+08:00","serial_no":"477ED0046A54F0360A72A63A8F2816312AAEAB53"}]}\n',
    signature:
      'KDrEP098zDlbX6ioHrS7sKLUNIqxzQcf+JXCkG5W44EKno1/qmI4WBf/sh63fwC++ZKBn/4gfEj7Iv4W3YH5kfgki6fFvfrRrGAxROiLSn/FZhbVu9E8pR4McxOR04UP+opyFhDL3lpPKqFB5AnUsTHhoCcZADzuHmCVHwU20DMGa00/Wr3kEcNYByy5hqz5sn7VbjoMs1KAMzmEKxXiIZIu5nvf4b4gk7zNvNWjMAUzsFHELHLfNqNMetzW/TIc0RL4S9vQL+GR7qRnzgKGkd5bfOn611jPEv1ut7UbWV+qvIYKeyaMe9xfyH83fobzSD9sbfZFwmb0wYMqPIgMtw==',
  },
  {
    name: 'response: TRANSACTION.SUCCESS (client_test.go:799)',
    source: 'gunsluo/wechatpay-go@599175d35ca6293ec22478e263fd538eff077603 client_test.go:799',
    keys: 'gunsluo',
    kind: 'response',
    timestamp: '1611368330',
    nonce: 'AF1404CC2980FB414C99C0B98883BD42',
    body: '{"id":"b62e271c-3389-58a0-8146-4a704966e8f1","create_time":"2021-01-28T17:07:11+08:00","resource_type":"encrypt-resource","event_type":"TRANSACTION.SUCCESS","summary":"支付成功","resource":{"original_type":"transaction","algorithm":"AEAD_AES_256_GCM","ciphertext":"yuKJXXxnqVMulBUy5NoriSab/S9aen3wXNYLqGdvBfxsWmN9JAFAMXO3LgDFPqNeZMrkSmQyFa981IVxLvWHzwrzlBtJk+hOwnxTgDxc8SsGt39QkRBbfGR8rutMr3Goiq03ygWjMA6I+n6qhqQ/zS0/bMIB1dQoFZBSCKiLp8VHbGDLirh9MqYRa7MKJEYziPF2DmdtRHvXie4AWSxcV6hq8Ufao9FQooLOA2gD/9JA+L6BqquOPOnStExxH26cK7QgFFAf22GP7JKXnMH0LF3lJrK6ZMQ7iTXvVxv/q6j3SwUbyWVKmXdMJTqnXtU4H90DjRC6It4cOavr3Gz6xeVyv4S3i1qdAD8rAqgjjF1QWnUQtIm4/TdOw3ro0L73VI07H8c9O6VX/U0TcGMJJrAKMJ/yBZlD6owliffy/pzceEG/MV27euHDS5VW/m23tokNy2G1XJu1T3sUzEUsNil7vngBLYHGEGNw6brOYxwxXEUI2n0tSJOG8upiSGmN0fOnWbPoN9YqtuIhvY4xKOJpKwQrNJSm+ybNrugAwbLf/HMATxK6dGk9RQK8Nn9PkHYuBnwDft8oxSDkqLO7KA==","associated_data":"transaction","nonce":"fG1l57vn9BCX"}}',
    signature:
      'g0A/VGU569/iS8MtR2SRfFg0YOqSzKYipRTJebnm6bLsWgSwWL92KMoAwNrP8qMqf1LUKWWrb2o0XpmLt2DMV7MStrJNmcViV6yVKzVRuS2XE3kUiQNFnbIdvNRiLI0hLDGA9W6dH5YUF/yVPanRo3rBLID8mFxD1tz2XyVpVKsDu7EhUQmwCKpgZ0a+lPILxZfMjnVI7VL6AFuf/iCrb/xaoVzGCJ1hLcPe7QV89MqNp2M4IP1wbiBqJezC7vBF/t/Rtyn+kK+My/S7iB+XDrHHXn/6ldp7RXBcDmjVbnp551oS2s8jyBFN1z/K+BIg+gYmyN9vOGgRFWcV2NGpUQ==',
  },
  {
    name: 'raw message "source"',
    source:
      'wechatpay-apiv3/wechatpay-go@6dbd7ce2ec5967ac2de5fa053479b411967b9c29 utils/sign_test.go TestSha256WithRsa (also core/auth/signers/sha256withrsa_signer_test.go, core/auth/verifiers/sha256withrsa_pubkey_verifier_test.go)',
    keys: 'wechatpayGo',
    kind: 'raw',
    message: 'source',
    signature:
      'BKyAfU4iMCuvXMXS0Wzam3V/cnxZ+JaqigPM5OhljS2iOT95OO6Fsuml2JkFANJU9K6q9bLlDhPXuoVz+pp4hAm6pHU4ld815U4jsKu1RkyaII+1CYBUYC8TK0XtJ8FwUXXz8vZHh58rrAVN1XwNyvD1vfpxrMT4SL536GLwvpUHlCqIMzoZUguLli/K8V29QiOhuH6IEqLNJn8e9b3nwNcQ7be3CzYGpDAKBfDGPCqCv8Rw5zndhlffk2FEA70G4hvMwe51qMN/RAJbknXG23bSlObuTCN7Ndj1aJGH6/L+hdwfLpUtJm4QYVazzW7DFD27EpSQEqA8bX9+8m1rLg==',
  },
  {
    name: 'raw message "message"',
    source:
      'wechatpay-apiv3/wechatpay-java@1dab7bec717989e4a4f006d2469c3eebe9eabba7 core/src/test/java/com/wechat/pay/java/core/cipher/RSAVerifierTest.java SIGNATURE_RESULT',
    keys: 'wechatpayJava',
    kind: 'raw',
    message: 'message',
    signature:
      'Rq+5ZpWV6IHTWE1+9gCrYJKguNgbItpMdlIA+PVCPCdUAKNlohZz7CL7Y8xWDIFJjdGnErMj6Z+Q/h9CF5MV+nAVkqDmBR0uP5ppsUEzco4ijvKHsvI2ro4boSW6vSfQs3W8I4QSI9a0/NFIgvj83Fv27LIYZf7deaFWmEwd1fpAeJRCyoKyBeJPdsjVx0//Lqe6Wze2zVdliLcBvaHCfpd8+rAVGS+FQDeWgHqJ7n/Zy09LmV1/ghs7pO1mdjdD16SHKlysAD3K5hNGUJX/SHrEXEcu1yO1AOb/YvOVkjNh8243rcfXNE5L4ph2XS11vS+2aToKYSOcKUagf0LLaw==',
  },
];
