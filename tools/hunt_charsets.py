#!/usr/bin/env python3
"""Hunt for wrong charset decisions with generated mail whose truth is known.

    tools/hunt_charsets.py [--n 4000] [--seed 1] [--bin PATH] [--out DIR] [--only KINDS]

A seeded generator writes messages in many charsets (ISO 8859, Windows,
KOI8, Mac, CJK, UTF-8/16/7) with sentences per language, one word to ~5 KB,
every transfer encoding; correctly labelled (clean or damaged: an octet
flipped, lost, inserted, its high bit lost, a character cut at a line end
or at the end), lying labels, binary attachments under text labels, a
quote or signature in another charset, encoded-words (split across
words, lying), RFC 2231 file names, HTML labelled by <meta>. Each goes
through `mailcharset normalize` and `audit --format jsonl`; the output is
decoded with Python's `email` and compared with the truth. Failures are
bucketed; `info-*` buckets are documented behaviour worth a look, the
others are wrong decisions (a correctly labelled line lost, binary
changed, a strong lie missed). `--dump FILE` writes one digest per case,
to compare two binaries.
"""
import argparse
import base64
import json
import os
import quopri
import random
import re
import struct
import subprocess
import tempfile
import zlib
from urllib.parse import quote
import email, email.header
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
# Sentences per language, written for this generator.
TEXTS = {
 'en': ["Thanks for the quick reply \u2014 I\u2019ll send the invoice on Monday.",
        "The meeting moved to Room 4B; bring the \u201cQ3 figures\u201d if you can.",
        "Price is \u20ac45 per seat, or \u00a340 if paid before the 3rd.",
        "Let me know whether the caf\u00e9 on Elm Street still works for you.",
        "Best regards, and say hi to the team."],
 'fr': ["Bonjour Marie, merci pour ta r\u00e9ponse tr\u00e8s rapide.",
        "Je serai \u00e0 la r\u00e9union de jeudi apr\u00e8s-midi, mais je dois partir t\u00f4t.",
        "Le document est d\u00e9j\u00e0 envoy\u00e9 \u00e0 l'\u00e9quipe de Gen\u00e8ve.",
        "Peux-tu v\u00e9rifier les chiffres du troisi\u00e8me trimestre ?",
        "On se voit \u00e0 No\u00ebl, bien s\u00fbr. \u00c0 bient\u00f4t !",
        "Cordialement, Fran\u00e7ois L\u00e9vesque"],
 'de': ["Hallo J\u00fcrgen, vielen Dank f\u00fcr die schnelle Antwort.",
        "Die Besprechung ist am Donnerstag um 14 Uhr im gro\u00dfen Saal.",
        "Bitte schick mir die \u00fcberarbeitete Fassung bis Freitag.",
        "Wir m\u00fcssen noch \u00fcber die Kosten f\u00fcr die Stra\u00dfenbahn sprechen.",
        "Sch\u00f6ne Gr\u00fc\u00dfe aus K\u00f6ln, dein \u00d6zg\u00fcr"],
 'es': ["Hola Jos\u00e9, \u00bfpodr\u00edas enviarme el informe ma\u00f1ana?",
        "La reuni\u00f3n ser\u00e1 en la oficina de Bogot\u00e1, no en Le\u00f3n.",
        "El a\u00f1o pasado compramos cinco ordenadores port\u00e1tiles.",
        "\u00a1Much\u00edsimas gracias por tu ayuda con la traducci\u00f3n!",
        "Un abrazo, Mar\u00eda Nu\u00f1ez"],
 'pt': ["Ol\u00e1 Jo\u00e3o, obrigado pela informa\u00e7\u00e3o sobre a reuni\u00e3o.",
        "As a\u00e7\u00f5es da empresa ca\u00edram tr\u00eas por cento ontem.",
        "Voc\u00ea j\u00e1 recebeu a minha mensagem de s\u00e1bado?",
        "Abra\u00e7os, Concei\u00e7\u00e3o"],
 'is': ["G\u00f3\u00f0an daginn, \u00fe\u00fa f\u00e6r\u00f0 sk\u00fdrsluna \u00e1 morgun.",
        "\u00c9g ver\u00f0 \u00ed Reykjav\u00edk \u00ed n\u00e6stu viku.",
        "Kve\u00f0ja, \u00der\u00f6stur"],
 'pl': ["Cze\u015b\u0107 Pawe\u0142, dzi\u0119kuj\u0119 za szybk\u0105 odpowied\u017a.",
        "Spotkanie odb\u0119dzie si\u0119 w \u015brod\u0119 we Wroc\u0142awiu.",
        "Prosz\u0119 przes\u0142a\u0107 poprawion\u0105 wersj\u0119 umowy do pi\u0105tku.",
        "Zaliczka wynosi tysi\u0105c z\u0142otych, reszta po odbiorze.",
        "Pozdrawiam serdecznie, Ma\u0142gorzata \u017bak"],
 'cs': ["Dobr\u00fd den, d\u011bkuji za rychlou odpov\u011b\u010f.",
        "Sch\u016fzka bude ve \u010dtvrtek v Brn\u011b, v zasedac\u00ed m\u00edstnosti.",
        "P\u0159\u00edli\u0161 \u017elu\u0165ou\u010dk\u00fd k\u016f\u0148 \u00fap\u011bl \u010f\u00e1belsk\u00e9 \u00f3dy.",
        "S pozdravem, Ji\u0159\u00ed \u0160\u0165astn\u00fd"],
 'hu': ["Kedves P\u00e9ter, k\u00f6sz\u00f6n\u00f6m a gyors v\u00e1laszt.",
        "A megbesz\u00e9l\u00e9s cs\u00fct\u00f6rt\u00f6k\u00f6n lesz Gy\u0151rben.",
        "\u00dcdv\u00f6zlettel, Szab\u00f3 \u00c1rp\u00e1d"],
 'ro': ["Bun\u0103 ziua, v\u0103 mul\u021bumesc pentru r\u0103spuns.",
        "\u0218edin\u021ba va avea loc mar\u021bi la Bra\u0219ov.",
        "Cu stim\u0103, Andrei \u021a\u0103ranu"],
 'tr': ["Merhaba Ay\u015fe, h\u0131zl\u0131 cevab\u0131n i\u00e7in te\u015fekk\u00fcrler.",
        "Toplant\u0131 \u00e7ar\u015famba g\u00fcn\u00fc \u0130stanbul ofisinde olacak.",
        "L\u00fctfen raporu cuma g\u00fcn\u00fcne kadar g\u00f6nder.",
        "Sayg\u0131lar\u0131mla, \u00c7a\u011flar \u00d6zt\u00fcrk"],
 'lt': ["Labas, a\u010di\u016b u\u017e grei\u010dius atsakym\u0105.",
        "Susitikimas vyks ketvirtadien\u012f Vilniuje.",
        "Pagarbiai, \u0160ar\u016bnas \u017dukauskas"],
 'lv': ["Labdien, paldies par \u0101tro atbildi.",
        "Sapulce notiks ceturtdien R\u012bg\u0101, \u0161aj\u0101 \u0113k\u0101.",
        "Ar cie\u0146u, J\u0101nis Ozoli\u0146\u0161"],
 'et': ["Tere, ait\u00e4h kiire vastuse eest.",
        "Koosolek toimub neljap\u00e4eval \u00f5htul P\u00e4rnus.",
        "Parimate soovidega, J\u00fcri \u00d5unap\u00e4\u00e4"],
 'ru': ["\u0417\u0434\u0440\u0430\u0432\u0441\u0442\u0432\u0443\u0439\u0442\u0435, \u0418\u0432\u0430\u043d \u041f\u0435\u0442\u0440\u043e\u0432\u0438\u0447!",
        "\u0421\u043f\u0430\u0441\u0438\u0431\u043e \u0437\u0430 \u0431\u044b\u0441\u0442\u0440\u044b\u0439 \u043e\u0442\u0432\u0435\u0442, \u0434\u043e\u0433\u043e\u0432\u043e\u0440 \u044f \u043f\u043e\u043b\u0443\u0447\u0438\u043b.",
        "\u0412\u0441\u0442\u0440\u0435\u0447\u0430 \u0431\u0443\u0434\u0435\u0442 \u0432 \u0447\u0435\u0442\u0432\u0435\u0440\u0433 \u0432 \u0434\u0432\u0430 \u0447\u0430\u0441\u0430 \u0434\u043d\u044f \u0432 \u043d\u0430\u0448\u0435\u043c \u043e\u0444\u0438\u0441\u0435.",
        "\u041f\u0440\u043e\u0448\u0443 \u043f\u0440\u0438\u0441\u043b\u0430\u0442\u044c \u0438\u0441\u043f\u0440\u0430\u0432\u043b\u0435\u043d\u043d\u0443\u044e \u0432\u0435\u0440\u0441\u0438\u044e \u0434\u043e \u043f\u044f\u0442\u043d\u0438\u0446\u044b.",
        "\u0415\u0449\u0451 \u043d\u0443\u0436\u043d\u043e \u043e\u0431\u0441\u0443\u0434\u0438\u0442\u044c \u0441\u043c\u0435\u0442\u0443 \u043d\u0430 \u0441\u043b\u0435\u0434\u0443\u044e\u0449\u0438\u0439 \u0433\u043e\u0434.",
        "\u0421 \u0443\u0432\u0430\u0436\u0435\u043d\u0438\u0435\u043c, \u0410\u043d\u043d\u0430 \u0421\u043c\u0438\u0440\u043d\u043e\u0432\u0430"],
 'uk': ["\u0414\u043e\u0431\u0440\u043e\u0433\u043e \u0434\u043d\u044f, \u0434\u044f\u043a\u0443\u044e \u0437\u0430 \u0448\u0432\u0438\u0434\u043a\u0443 \u0432\u0456\u0434\u043f\u043e\u0432\u0456\u0434\u044c.",
        "\u0417\u0443\u0441\u0442\u0440\u0456\u0447 \u0432\u0456\u0434\u0431\u0443\u0434\u0435\u0442\u044c\u0441\u044f \u0443 \u0447\u0435\u0442\u0432\u0435\u0440 \u0443 \u041a\u0438\u0454\u0432\u0456.",
        "\u0411\u0443\u0434\u044c \u043b\u0430\u0441\u043a\u0430, \u043d\u0430\u0434\u0456\u0448\u043b\u0456\u0442\u044c \u0457\u043c \u0433\u0430\u0437\u0435\u0442\u0443 \u0434\u043e \u043f'\u044f\u0442\u043d\u0438\u0446\u0456.",
        "\u0417 \u043f\u043e\u0432\u0430\u0433\u043e\u044e, \u041e\u043b\u0435\u0433 \u0413\u0430\u043d\u0443\u0441"],
 'bg': ["\u0417\u0434\u0440\u0430\u0432\u0435\u0439, \u0431\u043b\u0430\u0433\u043e\u0434\u0430\u0440\u044f \u0437\u0430 \u0431\u044a\u0440\u0437\u0438\u044f \u043e\u0442\u0433\u043e\u0432\u043e\u0440.",
        "\u0421\u0440\u0435\u0449\u0430\u0442\u0430 \u0449\u0435 \u0431\u044a\u0434\u0435 \u0432 \u0447\u0435\u0442\u0432\u044a\u0440\u0442\u044a\u043a \u0432 \u0421\u043e\u0444\u0438\u044f.",
        "\u041f\u043e\u0437\u0434\u0440\u0430\u0432\u0438, \u0413\u0435\u043e\u0440\u0433\u0438"],
 'el': ["\u039a\u03b1\u03bb\u03b7\u03bc\u03ad\u03c1\u03b1 \u03c3\u03b1\u03c2, \u03b5\u03c5\u03c7\u03b1\u03c1\u03b9\u03c3\u03c4\u03ce \u03b3\u03b9\u03b1 \u03c4\u03b7\u03bd \u03b3\u03c1\u03ae\u03b3\u03bf\u03c1\u03b7 \u03b1\u03c0\u03ac\u03bd\u03c4\u03b7\u03c3\u03b7.",
        "\u0397 \u03c3\u03c5\u03bd\u03ac\u03bd\u03c4\u03b7\u03c3\u03b7 \u03b8\u03b1 \u03b3\u03af\u03bd\u03b5\u03b9 \u03c4\u03b7\u03bd \u03a0\u03ad\u03bc\u03c0\u03c4\u03b7 \u03c3\u03c4\u03b7\u03bd \u0391\u03b8\u03ae\u03bd\u03b1.",
        "\u03a0\u03b1\u03c1\u03b1\u03ba\u03b1\u03bb\u03ce \u03c3\u03c4\u03b5\u03af\u03bb\u03c4\u03b5 \u03bc\u03bf\u03c5 \u03c4\u03bf \u03ad\u03b3\u03b3\u03c1\u03b1\u03c6\u03bf \u03bc\u03ad\u03c7\u03c1\u03b9 \u03c4\u03b7\u03bd \u03a0\u03b1\u03c1\u03b1\u03c3\u03ba\u03b5\u03c5\u03ae.",
        "\u039c\u03b5 \u03b5\u03ba\u03c4\u03af\u03bc\u03b7\u03c3\u03b7, \u0393\u03b9\u03ce\u03c1\u03b3\u03bf\u03c2 \u03a0\u03b1\u03c0\u03b1\u03b4\u03cc\u03c0\u03bf\u03c5\u03bb\u03bf\u03c2"],
 'he': ["\u05e9\u05dc\u05d5\u05dd \u05d3\u05e0\u05d9, \u05ea\u05d5\u05d3\u05d4 \u05e2\u05dc \u05d4\u05ea\u05e9\u05d5\u05d1\u05d4 \u05d4\u05de\u05d4\u05d9\u05e8\u05d4.",
        "\u05d4\u05e4\u05d2\u05d9\u05e9\u05d4 \u05ea\u05d4\u05d9\u05d4 \u05d1\u05d9\u05d5\u05dd \u05d7\u05de\u05d9\u05e9\u05d9 \u05d1\u05ea\u05dc \u05d0\u05d1\u05d9\u05d1.",
        "\u05d0\u05e0\u05d0 \u05e9\u05dc\u05d7 \u05dc\u05d9 \u05d0\u05ea \u05d4\u05de\u05e1\u05de\u05da \u05e2\u05d3 \u05d9\u05d5\u05dd \u05e9\u05d9\u05e9\u05d9.",
        "\u05d1\u05d1\u05e8\u05db\u05d4, \u05e8\u05d7\u05dc \u05db\u05d4\u05df"],
 'ar': ["\u0645\u0631\u062d\u0628\u0627 \u0623\u062d\u0645\u062f\u060c \u0634\u0643\u0631\u0627 \u0639\u0644\u0649 \u0631\u062f\u0643 \u0627\u0644\u0633\u0631\u064a\u0639.",
        "\u0633\u064a\u0643\u0648\u0646 \u0627\u0644\u0627\u062c\u062a\u0645\u0627\u0639 \u064a\u0648\u0645 \u0627\u0644\u062e\u0645\u064a\u0633 \u0641\u064a \u0627\u0644\u0642\u0627\u0647\u0631\u0629.",
        "\u0627\u0644\u0631\u062c\u0627\u0621 \u0625\u0631\u0633\u0627\u0644 \u0627\u0644\u062a\u0642\u0631\u064a\u0631 \u0642\u0628\u0644 \u064a\u0648\u0645 \u0627\u0644\u062c\u0645\u0639\u0629.",
        "\u0645\u0639 \u062a\u062d\u064a\u0627\u062a\u064a\u060c \u0633\u0627\u0631\u0629"],
 'th': ["\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35\u0e04\u0e23\u0e31\u0e1a \u0e02\u0e2d\u0e1a\u0e04\u0e38\u0e13\u0e17\u0e35\u0e48\u0e15\u0e2d\u0e1a\u0e01\u0e25\u0e31\u0e1a\u0e21\u0e32\u0e40\u0e23\u0e47\u0e27",
        "\u0e01\u0e32\u0e23\u0e1b\u0e23\u0e30\u0e0a\u0e38\u0e21\u0e08\u0e30\u0e21\u0e35\u0e02\u0e36\u0e49\u0e19\u0e43\u0e19\u0e27\u0e31\u0e19\u0e1e\u0e24\u0e2b\u0e31\u0e2a\u0e1a\u0e14\u0e35\u0e17\u0e35\u0e48\u0e01\u0e23\u0e38\u0e07\u0e40\u0e17\u0e1e\u0e2f",
        "\u0e01\u0e23\u0e38\u0e13\u0e32\u0e2a\u0e48\u0e07\u0e40\u0e2d\u0e01\u0e2a\u0e32\u0e23\u0e20\u0e32\u0e22\u0e43\u0e19\u0e27\u0e31\u0e19\u0e28\u0e38\u0e01\u0e23\u0e4c",
        "\u0e02\u0e2d\u0e41\u0e2a\u0e14\u0e07\u0e04\u0e27\u0e32\u0e21\u0e19\u0e31\u0e1a\u0e16\u0e37\u0e2d \u0e2a\u0e21\u0e0a\u0e32\u0e22"],
 'ja': ["\u7530\u4e2d\u69d8\u3001\u3044\u3064\u3082\u304a\u4e16\u8a71\u306b\u306a\u3063\u3066\u304a\u308a\u307e\u3059\u3002",
        "\u5148\u65e5\u306e\u6253\u3061\u5408\u308f\u305b\u306e\u4ef6\u3067\u3001\u8cc7\u6599\u3092\u304a\u9001\u308a\u3057\u307e\u3059\u3002",
        "\u6765\u9031\u306e\u6728\u66dc\u65e5\u5348\u5f8c\u4e8c\u6642\u304b\u3089\u4f1a\u8b70\u5ba4\u3067\u304a\u5f85\u3061\u3057\u3066\u304a\u308a\u307e\u3059\u3002",
        "\u3054\u4e0d\u660e\u306a\u70b9\u304c\u3054\u3056\u3044\u307e\u3057\u305f\u3089\u3001\u304a\u6c17\u8efd\u306b\u3054\u9023\u7d61\u304f\u3060\u3055\u3044\u3002",
        "\u30b5\u30fc\u30d0\u30fc\u306e\u30e1\u30f3\u30c6\u30ca\u30f3\u30b9\u306f\u571f\u66dc\u65e5\u306e\u591c\u306b\u884c\u3044\u307e\u3059\u3002",
        "\u3088\u308d\u3057\u304f\u304a\u9858\u3044\u3044\u305f\u3057\u307e\u3059\u3002\u5c71\u7530\u592a\u90ce"],
 'ko': ["\uae40\ubbfc\uc218 \ub2d8, \ube60\ub978 \ub2f5\uc7a5 \uac10\uc0ac\ud569\ub2c8\ub2e4.",
        "\ud68c\uc758\ub294 \ubaa9\uc694\uc77c \uc624\ud6c4 \ub450 \uc2dc\uc5d0 \uc11c\uc6b8 \uc0ac\ubb34\uc2e4\uc5d0\uc11c \uc5f4\ub9bd\ub2c8\ub2e4.",
        "\uc218\uc815\ub41c \uacc4\uc57d\uc11c\ub97c \uae08\uc694\uc77c\uae4c\uc9c0 \ubcf4\ub0b4 \uc8fc\uc2dc\uae30 \ubc14\ub78d\ub2c8\ub2e4.",
        "\uc88b\uc740 \ud558\ub8e8 \ubcf4\ub0b4\uc138\uc694. \uc774\uc9c0\uc740 \ub4dc\ub9bc"],
 'zh': ["\u5f20\u5148\u751f\uff0c\u611f\u8c22\u60a8\u7684\u5feb\u901f\u56de\u590d\u3002",
        "\u4f1a\u8bae\u5b9a\u4e8e\u661f\u671f\u56db\u4e0b\u5348\u4e24\u70b9\u5728\u5317\u4eac\u529e\u516c\u5ba4\u4e3e\u884c\u3002",
        "\u8bf7\u5728\u661f\u671f\u4e94\u4e4b\u524d\u628a\u4fee\u6539\u540e\u7684\u5408\u540c\u53d1\u7ed9\u6211\u3002",
        "\u6211\u4eec\u8fd8\u9700\u8981\u8ba8\u8bba\u660e\u5e74\u7684\u9884\u7b97\u95ee\u9898\u3002",
        "\u795d\u597d\uff0c\u674e\u660e"],
 'zht': ["\u9673\u5148\u751f\uff0c\u611f\u8b1d\u60a8\u7684\u5feb\u901f\u56de\u8986\u3002",
        "\u6703\u8b70\u5b9a\u65bc\u661f\u671f\u56db\u4e0b\u5348\u5169\u9ede\u5728\u53f0\u5317\u8fa6\u516c\u5ba4\u8209\u884c\u3002",
        "\u8acb\u5728\u661f\u671f\u4e94\u4e4b\u524d\u628a\u4fee\u6539\u5f8c\u7684\u5408\u7d04\u767c\u7d66\u6211\u3002",
        "\u6211\u5011\u9084\u9700\u8981\u8a0e\u8ad6\u660e\u5e74\u7684\u9810\u7b97\u554f\u984c\u3002",
        "\u795d\u597d\uff0c\u738b\u5927\u660e"],
 'cy': ["Bore da, diolch am yr ateb cyflym.",
        "Bydd y cyfarfod yn \u0175yl Dewi yn Aberystwyth, nid yn Llanfair.",
        "Cofion cynnes, Si\u00f4n ap Gwynfor, T\u0177 Mawr"],
 'mt': ["Bonjour, il-la\u0127\u0127a \u0121ejt minn \u0126amrun.",
        "Il-laqg\u0127a se ssir nhar il-\u0126amis fil-Belt.",
        "Sa\u0127\u0127a, \u0120u\u017cepp"],
 'fi': ["Hei Mikko, kiitos nopeasta vastauksesta.",
        "Kokous pidet\u00e4\u00e4n torstaina kello kaksi J\u00e4rvenp\u00e4\u00e4ss\u00e4.",
        "Yst\u00e4v\u00e4llisin terveisin, P\u00e4ivi"],
}
# One-word subjects
WORDS = {
 'en': "Invoice", 'fr': "R\u00e9union", 'de': "Gr\u00fc\u00dfe", 'es': "Informaci\u00f3n", 'pt': "Reuni\u00e3o",
 'is': "Sk\u00fdrsla", 'pl': "Spotkanie \u015broda", 'cs': "Sch\u016fzka", 'hu': "Megbesz\u00e9l\u00e9s", 'ro': "\u0218edin\u021b\u0103",
 'tr': "Toplant\u0131", 'lt': "Susitikimas", 'lv': "Sapulce", 'et': "Koosolek", 'ru': "\u0412\u0441\u0442\u0440\u0435\u0447\u0430",
 'uk': "\u0417\u0443\u0441\u0442\u0440\u0456\u0447", 'bg': "\u0421\u0440\u0435\u0449\u0430", 'el': "\u03a3\u03c5\u03bd\u03ac\u03bd\u03c4\u03b7\u03c3\u03b7", 'he': "\u05e4\u05d2\u05d9\u05e9\u05d4",
 'ar': "\u0627\u062c\u062a\u0645\u0627\u0639", 'th': "\u0e01\u0e32\u0e23\u0e1b\u0e23\u0e30\u0e0a\u0e38\u0e21", 'ja': "\u4f1a\u8b70", 'ko': "\ud68c\uc758", 'zh': "\u4f1a\u8bae",
 'zht': "\u6703\u8b70", 'cy': "Cyfarfod", 'mt': "Laqg\u0127a", 'fi': "Kokous",
}
# (charset label, python codec, languages, tld)
CHARSETS = [
 ('iso-8859-1', 'cp1252', ['en','fr','de','es','pt','is','fi'], None),
 ('windows-1252', 'cp1252', ['en','fr','de','es','pt','is','fi'], None),
 ('iso-8859-15', 'iso8859_15', ['fr','de','es','fi'], None),
 ('iso-8859-2', 'iso8859_2', ['pl','cs','hu'], None),
 ('windows-1250', 'cp1250', ['pl','cs','hu'], None),
 ('iso-8859-3', 'iso8859_3', ['mt'], 'mt'),
 ('iso-8859-4', 'iso8859_4', ['lt','lv','et'], None),
 ('iso-8859-13', 'iso8859_13', ['lt','lv','et'], None),
 ('windows-1257', 'cp1257', ['lt','lv','et'], None),
 ('iso-8859-5', 'iso8859_5', ['ru','bg'], None),
 ('windows-1251', 'cp1251', ['ru','uk','bg'], None),
 ('koi8-r', 'koi8_r', ['ru'], None),
 ('koi8-u', 'koi8_u', ['uk'], None),
 ('ibm866', 'cp866', ['ru'], None),
 ('x-mac-cyrillic', 'mac_cyrillic', ['ru'], None),
 ('macintosh', 'mac_roman', ['fr','de','es'], None),
 ('iso-8859-7', 'iso8859_7', ['el'], None),
 ('windows-1253', 'cp1253', ['el'], None),
 ('iso-8859-8', 'iso8859_8', ['he'], None),
 ('windows-1255', 'cp1255', ['he'], None),
 ('iso-8859-6', 'iso8859_6', ['ar'], None),
 ('windows-1256', 'cp1256', ['ar'], None),
 ('iso-8859-9', 'cp1254', ['tr'], None),
 ('windows-1254', 'cp1254', ['tr'], None),
 ('iso-8859-10', 'iso8859_10', ['is','fi'], None),
 ('iso-8859-14', 'iso8859_14', ['cy'], None),
 ('iso-8859-16', 'iso8859_16', ['ro','pl','hu'], None),
 ('tis-620', 'cp874', ['th'], None),
 ('windows-874', 'cp874', ['th'], None),
 ('shift_jis', 'cp932', ['ja'], None),
 ('euc-jp', 'euc_jp', ['ja'], None),
 ('iso-2022-jp', 'iso2022_jp', ['ja'], None),
 ('euc-kr', 'euc_kr', ['ko'], None),
 ('ks_c_5601-1987', 'cp949', ['ko'], None),
 ('big5', 'big5', ['zht'], None),
 ('big5-hkscs', 'big5hkscs', ['zht'], None),
 ('gb2312', 'gb2312', ['zh'], None),
 ('gbk', 'gbk', ['zh'], None),
 ('gb18030', 'gb18030', ['zh'], None),
 ('utf-8', 'utf-8', list(TEXTS), None),
]
TLD = {'en':'com','fr':'fr','de':'de','es':'es','pt':'br','is':'is','pl':'pl','cs':'cz','hu':'hu','ro':'ro','tr':'tr',
 'lt':'lt','lv':'lv','et':'ee','ru':'ru','uk':'ua','bg':'bg','el':'gr','he':'il','ar':'eg','th':'th','ja':'jp','ko':'kr',
 'zh':'cn','zht':'tw','cy':'uk','mt':'mt','fi':'fi'}


CS = {c[0]: c for c in CHARSETS}
# Python codec reading of a label, as WHATWG (encoding_rs) reads it.
READ = {c[0]: c[1] for c in CHARSETS}
READ.update({'iso-8859-1': 'cp1252', 'us-ascii': 'cp1252', 'utf-16': 'utf-16', 'utf-16le': 'utf-16-le',
             'utf-16be': 'utf-16-be', 'utf-7': 'utf-7', 'gb2312': 'gb18030', 'gbk': 'gb18030',
             'big5': 'big5hkscs', 'euc-kr': 'cp949', 'shift_jis': 'cp932', 'iso-8859-11': 'cp874'})

MULTI = {'shift_jis', 'euc-jp', 'iso-2022-jp', 'euc-kr', 'ks_c_5601-1987', 'big5', 'big5-hkscs', 'gb2312', 'gbk', 'gb18030', 'utf-8'}


def para(rng, lang, size):
    """Text of a language: 'word', 'short' (2 lines), 'mid', 'long' (~5 KB)."""
    sents = TEXTS[lang]
    if size == 'word':
        return WORDS[lang]
    if size == 'short':
        return '\n'.join(rng.sample(sents, min(2, len(sents))))
    target = 600 if size == 'mid' else 5000
    out, n = [], 0
    asc = ["", "> see below", "Ticket #4711, build 2.3.1", "http://example.com/path?id=42",
           "--", "Tel. +49 30 1234567", "OK.", "---------- Forwarded message ----------"]
    while n < target:
        s = rng.choice(sents) if rng.random() < 0.75 else rng.choice(asc)
        out.append(s)
        n += len(s.encode('utf-8')) + 1
    return '\n'.join(out)


def enc(text, codec):
    return text.encode(codec)


def lines_of(b):
    return b.split(b'\n')


# ---------------------------------------------------------------- damage
def damage(rng, body, model, codec):
    """Returns (damaged bytes, set of damaged line indexes)."""
    b = bytearray(body)
    na = [i for i, x in enumerate(b) if x >= 0x80] or list(range(len(b)))
    if codec == 'iso2022_jp':  # 7-bit: damage an escape run
        na = [i for i in range(len(b)) if b[i] not in (10, 13)]
    if not na:
        return bytes(b), set()
    def lineno(pos):
        return bytes(b[:pos]).count(b'\n')
    hit = set()
    if model == 'flip':
        i = rng.choice(na); hit.add(lineno(i)); b[i] = rng.randrange(0x80, 0x100)
    elif model == 'flip3':
        for _ in range(3):
            i = rng.choice(na); hit.add(lineno(i)); b[i] = rng.randrange(0x80, 0x100)
    elif model == 'remove':
        i = rng.choice(na); hit.add(lineno(i)); del b[i]
    elif model == 'insert':
        i = rng.choice(na); hit.add(lineno(i)); b.insert(i, rng.randrange(0x80, 0x100))
    elif model == 'bitflip':  # a high bit lost (8bit->7bit gateway)
        i = rng.choice(na); hit.add(lineno(i)); b[i] &= 0x7F
    elif model == 'trunc_end':
        # cut inside the last multi-octet character
        j = max(i for i in na) if na else len(b) - 1
        hit.add(lineno(j)); del b[j:]
    elif model == 'trunc_line':
        # drop the last octet before some LF that follows a non-ASCII octet
        cands = [i for i in range(1, len(b)) if b[i] == 10 and b[i - 1] >= 0x80]
        if not cands:
            return bytes(b), set()
        i = rng.choice(cands); hit.add(lineno(i)); del b[i - 1]
    return bytes(b), hit


# ---------------------------------------------------------------- messages
def qp(b):
    return quopri.encodestring(b)


def b64(b):
    return base64.encodebytes(b)


def cte_encode(body, cte):
    if cte == 'quoted-printable':
        return qp(body)
    if cte == 'base64':
        return b64(body)
    return body


def ew(text_bytes, label, mode='B'):
    if mode == 'B':
        return b'=?' + label.encode() + b'?B?' + base64.b64encode(text_bytes) + b'?='
    q = bytearray()
    for x in text_bytes:
        if x == 0x20:
            q += b'_'
        elif 33 <= x < 127 and x not in b'=?_':
            q.append(x)
        else:
            q += b'=%02X' % x
    return b'=?' + label.encode() + b'?Q?' + bytes(q) + b'?='


def header_block(tld, subj_raw, ct, cte, extra=b''):
    h = b'From: Sender <user@mail.example.' + tld.encode() + b'>\n'
    h += b'To: rcpt@example.net\n'
    h += b'Subject: ' + subj_raw + b'\n'
    h += b'Message-ID: <x@mail.example.' + tld.encode() + b'>\n'
    h += b'Date: Tue, 10 Mar 2009 12:00:00 +0000\nMIME-Version: 1.0\n'
    h += b'Content-Type: ' + ct + b'\n'
    if cte:
        h += b'Content-Transfer-Encoding: ' + cte.encode() + b'\n'
    return h + extra


def single(tld, subj_raw, label, body, cte='8bit', ctype='text/plain'):
    ct = ctype.encode() + (b'; charset="' + label.encode() + b'"' if label else b'')
    return header_block(tld, subj_raw, ct, cte) + b'\n' + cte_encode(body, cte)


def pick_cte(rng, body, label):
    if label in ('utf-16', 'utf-16le', 'utf-16be'):
        return 'base64'
    return rng.choice(['8bit', '8bit', 'quoted-printable', 'base64'] if any(x >= 0x80 for x in body) else ['7bit', 'quoted-printable', 'base64'])


# ---------------------------------------------------------------- cases
def case_clean(rng):
    label, codec, langs, _ = rng.choice(CHARSETS)
    lang = rng.choice(langs)
    size = rng.choice(['word', 'short', 'short', 'mid', 'long'])
    text = para(rng, lang, size)
    if rng.random() < 0.3:
        text = text.replace('\n', '\r\n') if rng.random() < 0.5 else text
    body = enc(text, codec) + b'\n'
    cte = pick_cte(rng, body, label)
    subj_text = WORDS[lang]
    subj = ew(enc(subj_text, codec), label, rng.choice('BQ'))
    tld = TLD[lang] if rng.random() < 0.7 else 'com'
    raw = single(tld, subj, label, body, cte)
    return dict(kind='clean', desc=f'{label}/{lang}/{size}/{cte}', raw=raw,
                parts=[dict(check='exact', truth=text + '\n')], subject=subj_text)


def case_damaged(rng):
    label, codec, langs, _ = rng.choice(CHARSETS)
    lang = rng.choice(langs)
    size = rng.choice(['short', 'mid', 'mid', 'long'])
    model = rng.choice(['flip', 'flip3', 'remove', 'insert', 'bitflip', 'trunc_end', 'trunc_line'])
    text = para(rng, lang, size)
    body = enc(text, codec) + (b'' if model == 'trunc_end' else b'\n')
    dbody, hit = damage(rng, body, model, codec)
    if dbody == body:
        return None
    tlines = (text + ('' if model == 'trunc_end' else '\n')).split('\n')
    keep = [l for i, l in enumerate(tlines) if i not in hit and any(ord(c) > 127 for c in l)]
    cte = rng.choice(['8bit', 'quoted-printable', 'base64'])
    tld = TLD[lang] if rng.random() < 0.7 else 'com'
    raw = single(tld, b'Re: ' + ew(enc(WORDS[lang], codec), label), label, dbody, cte)
    return dict(kind='damaged', desc=f'{label}/{lang}/{size}/{model}', raw=raw,
                parts=[dict(check='lines', keep=keep, label=label, dbody=dbody.hex())], subject='Re: ' + WORDS[lang])


LIES = [
    # (true charset, python codec, label written, langs)
    ('utf-8', 'utf-8', 'iso-8859-1', ['fr', 'de', 'es', 'pt', 'ru', 'ja', 'el', 'zh', 'pl', 'tr']),
    ('utf-8', 'utf-8', 'windows-1252', ['fr', 'de', 'es', 'ru', 'zh']),
    ('utf-8', 'utf-8', 'us-ascii', ['fr', 'de', 'ru']),
    ('utf-8', 'utf-8', 'iso-8859-2', ['pl', 'cs']),
    ('utf-8', 'utf-8', 'koi8-r', ['ru']),
    ('utf-8', 'utf-8', 'windows-1251', ['ru', 'uk']),
    ('utf-8', 'utf-8', 'iso-8859-7', ['el']),
    ('utf-8', 'utf-8', 'shift_jis', ['ja']),
    ('utf-8', 'utf-8', 'iso-2022-jp', ['ja']),
    ('utf-8', 'utf-8', 'gb2312', ['zh']),
    ('utf-8', 'utf-8', 'big5', ['zht']),
    ('utf-8', 'utf-8', 'euc-kr', ['ko']),
    ('utf-8', 'utf-8', 'tis-620', ['th']),
    ('utf-8', 'utf-8', 'windows-1256', ['ar']),
    ('utf-8', 'utf-8', 'iso-8859-8', ['he']),
    ('windows-1252', 'cp1252', 'iso-8859-15', ['en', 'fr']),
    ('windows-1252', 'cp1252', 'us-ascii', ['en', 'fr', 'de']),
    ('windows-1252', 'cp1252', 'utf-8', ['fr', 'de', 'es']),
    ('windows-1250', 'cp1250', 'iso-8859-1', ['pl', 'cs']),
    ('windows-1250', 'cp1250', 'utf-8', ['pl', 'cs']),
    ('windows-1251', 'cp1251', 'koi8-r', ['ru']),
    ('koi8-r', 'koi8_r', 'windows-1251', ['ru']),
    ('windows-1251', 'cp1251', 'iso-8859-1', ['ru', 'bg']),
    ('windows-1251', 'cp1251', 'utf-8', ['ru', 'uk']),
    ('koi8-r', 'koi8_r', 'utf-8', ['ru']),
    ('windows-1251', 'cp1251', 'iso-8859-5', ['ru']),
    ('iso-8859-7', 'iso8859_7', 'utf-8', ['el']),
    ('windows-1253', 'cp1253', 'iso-8859-1', ['el']),
    ('windows-1256', 'cp1256', 'iso-8859-6', ['ar']),
    ('windows-1255', 'cp1255', 'utf-8', ['he']),
    ('cp874', 'cp874', 'iso-8859-1', ['th']),
    ('cp874', 'cp874', 'utf-8', ['th']),
    ('shift_jis', 'cp932', 'iso-2022-jp', ['ja']),
    ('euc-jp', 'euc_jp', 'iso-2022-jp', ['ja']),
    ('shift_jis', 'cp932', 'euc-jp', ['ja']),
    ('euc-jp', 'euc_jp', 'shift_jis', ['ja']),
    ('shift_jis', 'cp932', 'utf-8', ['ja']),
    ('shift_jis', 'cp932', 'iso-8859-1', ['ja']),
    ('gbk', 'gbk', 'big5', ['zh']),
    ('big5', 'big5', 'gb2312', ['zht']),
    ('gbk', 'gbk', 'utf-8', ['zh']),
    ('euc-kr', 'cp949', 'gb2312', ['ko']),
    ('euc-kr', 'cp949', 'utf-8', ['ko']),
    ('euc-kr', 'cp949', 'iso-8859-1', ['ko']),
    ('gb18030', 'gb18030', 'gb2312', ['zh']),
    ('big5-hkscs', 'big5hkscs', 'big5', ['zht']),
]


def case_lie(rng):
    true, codec, label, langs = rng.choice(LIES)
    lang = rng.choice(langs)
    size = rng.choice(['word', 'short', 'mid', 'long'])
    text = para(rng, lang, size)
    if true == 'gb18030':
        text += '\n\u20ac \u00e9t\u00e9'  # 4-octet sequences
    try:
        body = enc(text, codec) + b'\n'
    except UnicodeEncodeError:
        return None
    cte = rng.choice(['8bit', 'quoted-printable', 'base64'])
    tld = TLD[lang] if rng.random() < 0.7 else 'com'
    raw = single(tld, b'Lie', label, body, cte)
    try:
        alt = body.decode(READ.get(label, 'cp1252'), errors='replace')
    except LookupError:
        alt = None
    nonascii = sum(1 for c in text if ord(c) > 127)
    strength = 'strong' if nonascii >= 40 else ('thin' if nonascii < 6 else 'mid')
    return dict(kind='lie', desc=f'{true}-as-{label}/{lang}/{size}/{strength}', raw=raw,
                parts=[dict(check='lie', truth=text + '\n', alt=alt, strength=strength)])


def wav(rng, n):
    pcm = b''.join(struct.pack('<h', int(rng.gauss(0, 300))) for _ in range(n))
    return b'RIFF' + struct.pack('<I', 36 + len(pcm)) + b'WAVEfmt ' + struct.pack('<IHHIIHH', 16, 1, 1, 8000, 16000, 2, 16) + b'data' + struct.pack('<I', len(pcm)) + pcm


# Blobs that are a magic number followed by random octets.
MAGIC = {
    'png': b'\x89PNG\r\n\x1a\n', 'zip': b'PK\x03\x04', 'pdf': b'%PDF-1.4\n',
    'jpeg': b'\xff\xd8\xff\xe0', 'mp3': b'ID3\x03\x00\x00\x00\x00\x0f\x76',
    'ogg': b'OggS\x00\x02', 'tiff': b'II*\x00\x08\x00\x00\x00', 'gz': b'\x1f\x8b\x08\x00',
    'ole': b'\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1', 'sqlite': b'SQLite format 3\x00',
    'woff': b'wOFF\x00\x01\x00\x00', 'ttf': b'\x00\x01\x00\x00\x00\x0c\x00\x80',
    'ico': b'\x00\x00\x01\x00\x01\x00\x10\x10', 'mp4': b'\x00\x00\x00\x18ftypmp42',
}


def blob(rng):
    k = rng.choice(['random', 'png', 'zip', 'pdf', 'jpeg', 'wav', 'pcm', 'u16ints', 'bmp', 'mp3', 'ogg', 'tiff', 'gz', 'u16text_blob', 'ole', 'sqlite', 'woff', 'ttf', 'ico', 'webp', 'mp4', 'deflate'])
    n = rng.choice([40, 200, 2000, 20000])
    r = bytes(rng.randrange(256) for _ in range(n))
    if k in MAGIC:
        return k, MAGIC[k] + r
    if k == 'wav':
        return k, wav(rng, n // 2)
    if k == 'pcm':
        return k, wav(rng, n // 2)[44:]
    if k == 'u16ints':
        return k, b''.join(struct.pack('<H', rng.randrange(0, 1000)) for _ in range(n // 2))
    if k == 'bmp':
        return k, b'BM' + struct.pack('<IHHI', 54 + n, 0, 0, 54) + r
    if k == 'u16text_blob':  # binary table of UTF-16 code units with counters
        return k, b''.join(struct.pack('<HH', 0x4E00 + rng.randrange(2000), i) for i in range(n // 4))
    if k == 'webp':
        return k, b'RIFF' + struct.pack('<I', n) + b'WEBPVP8 ' + r
    if k == 'deflate':
        return k, zlib.compress(r + bytes(rng.randrange(65, 70) for _ in range(n)))
    return k, r  # 'random'


def case_binary(rng):
    k, data = blob(rng)
    label = rng.choice(['us-ascii', 'utf-8', 'iso-8859-1', 'windows-1252', 'koi8-r', 'shift_jis', 'gb2312', 'utf-16', 'utf-16le', 'iso-2022-jp', 'utf-7', None])
    cte = 'base64'
    raw = single('com', b'attachment', label, data, cte, ctype=rng.choice(['text/plain', 'text/plain', 'text/html', 'application/octet-stream']))
    return dict(kind='binary', desc=f'{k}/{label}/{len(data)}', raw=raw, parts=[dict(check='bytes', orig=data.hex())],
                ctype=None)


def case_mixed(rng):
    """A body in its label with a pasted block in another charset."""
    variants = [
        ('iso-8859-1', 'cp1252', 'fr', 'utf-8', 'utf-8', 'de', 'sig'),
        ('iso-8859-1', 'cp1252', 'de', 'utf-8', 'utf-8', 'fr', 'sig'),
        ('windows-1252', 'cp1252', 'es', 'utf-8', 'utf-8', 'es', 'sig'),
        ('utf-8', 'utf-8', 'fr', 'iso-8859-1', 'cp1252', 'fr', 'quote'),
        ('utf-8', 'utf-8', 'de', 'iso-8859-1', 'cp1252', 'de', 'quote'),
        ('utf-8', 'utf-8', 'ru', 'koi8-r', 'koi8_r', 'ru', 'quote'),
        ('utf-8', 'utf-8', 'ja', 'shift_jis', 'cp932', 'ja', 'quote'),
        ('koi8-r', 'koi8_r', 'ru', 'windows-1251', 'cp1251', 'ru', 'quote'),
        ('windows-1251', 'cp1251', 'ru', 'koi8-r', 'koi8_r', 'ru', 'quote'),
        ('iso-2022-jp', 'iso2022_jp', 'ja', 'shift_jis', 'cp932', 'ja', 'quote'),
        ('iso-2022-jp', 'iso2022_jp', 'ja', 'utf-8', 'utf-8', 'ja', 'quote'),
        ('shift_jis', 'cp932', 'ja', 'euc-jp', 'euc_jp', 'ja', 'quote'),
        ('gb2312', 'gb2312', 'zh', 'big5', 'big5', 'zht', 'quote'),
        ('euc-kr', 'cp949', 'ko', 'utf-8', 'utf-8', 'ko', 'quote'),
        ('iso-8859-2', 'iso8859_2', 'pl', 'utf-8', 'utf-8', 'pl', 'sig'),
        ('windows-1251', 'cp1251', 'ru', 'utf-8', 'utf-8', 'ru', 'sig'),
        ('iso-8859-7', 'iso8859_7', 'el', 'utf-8', 'utf-8', 'el', 'sig'),
    ]
    label, codec, lang, olabel, ocodec, olang, how = rng.choice(variants)
    size = rng.choice(['short', 'mid', 'long'])
    main = para(rng, lang, size)
    other = para(rng, olang, rng.choice(['short', 'short', 'mid']))
    if how == 'sig':
        other = '-- \n' + other
    else:
        other = 'On Monday someone wrote:\n' + '\n'.join('> ' + l for l in other.split('\n'))
    body = enc(main, codec) + b'\n\n' + enc(other, ocodec) + b'\n'
    keep = [l for l in main.split('\n') if any(ord(c) > 127 for c in l)]
    okeep = [l for l in other.split('\n') if any(ord(c) > 127 for c in l)]
    cte = rng.choice(['8bit', 'quoted-printable', 'base64'])
    tld = TLD[lang] if rng.random() < 0.7 else 'com'
    raw = single(tld, b'Re: mixed', label, body, cte)
    return dict(kind='mixed', desc=f'{label}+{olabel}/{how}/{lang}/{size}', raw=raw,
                parts=[dict(check='lines', keep=keep, okeep=okeep, label=label, dbody=body.hex())])


def case_header(rng):
    """Subjects: correct, lying, split multibyte, raw 8-bit."""
    label, codec, langs, _ = rng.choice(CHARSETS)
    lang = rng.choice(langs)
    text = WORDS[lang] if rng.random() < 0.5 else rng.choice(TEXTS[lang])
    b = enc(text, codec)
    mode = rng.choice(['ok', 'ok', 'split', 'splitq', 'raw8', 'lie_utf8', 'lie_label'])
    truth = text
    expect = 'exact'
    if mode == 'ok':
        subj = ew(b, label, rng.choice('BQ'))
    elif mode in ('split', 'splitq'):
        # split at arbitrary octets (multibyte cut across words)
        if len(b) < 4 or codec == 'iso2022_jp':
            return None
        cuts = sorted(rng.sample(range(1, len(b)), min(3, len(b) - 1)))
        pieces, at = [], 0
        for c in cuts + [len(b)]:
            pieces.append(b[at:c]); at = c
        subj = b'\n '.join(ew(p, label, 'B' if mode == 'split' else 'Q') for p in pieces)
    elif mode == 'raw8':
        if codec == 'iso2022_jp':
            return None
        subj = b
        expect = 'raw8'
        # Half the time the body is text in the same charset, labelled:
        # the mailers that write raw 8-bit headers (Outlook Express, The
        # Bat!, Eudora) write them in the body's charset.
        if label != 'utf-8' and rng.random() < 0.5:
            expect = 'raw8-body'
    elif mode == 'lie_utf8':
        if label == 'utf-8':
            return None
        subj = ew(text.encode('utf-8'), label, 'B')
        n = sum(1 for c in text if ord(c) > 127)
        expect = 'exact' if n >= 6 else 'either'
        truth = text
    elif mode == 'lie_label':
        # legacy octets labelled utf-8
        if label == 'utf-8':
            return None
        subj = ew(b, 'utf-8', 'B')
        n = sum(1 for c in text if ord(c) > 127)
        expect = 'exact' if n >= 12 else 'either'
    body = b'Hello, see subject.\n'
    if expect == 'raw8-body':
        body = enc(para(rng, lang, 'short'), codec) + b'\n'
        raw = single(TLD[lang], subj, label, body, '8bit')
    else:
        raw = single(TLD[lang], subj, 'us-ascii', body, '7bit')
    alt = None
    if mode == 'lie_utf8':
        alt = text.encode('utf-8').decode(READ.get(label, 'cp1252'), errors='replace')
    if mode == 'lie_label':
        alt = b.decode('utf-8', errors='replace')
    return dict(kind='header', desc=f'{label}/{lang}/{mode}', raw=raw, parts=[],
                subject=truth, subject_check=expect, subject_alt=alt, label=label)


def case_multipart(rng):
    """multipart/mixed: text part, html part (meta charset), binary attachment."""
    label, codec, langs, _ = rng.choice([c for c in CHARSETS if c[0] != 'iso-2022-jp'])
    lang = rng.choice(langs)
    text = para(rng, lang, rng.choice(['short', 'mid']))
    html = '<html><head><meta http-equiv="Content-Type" content="text/html; charset=%s"></head><body><p>%s</p></body></html>' % (
        label, '</p>\n<p>'.join(text.split('\n')))
    k, data = blob(rng)
    tb = enc(text, codec) + b'\n'
    hb = enc(html, codec) + b'\n'
    html_label = rng.choice([label, None])  # None: the meta labels it
    parts = [(b'text/plain; charset="' + label.encode() + b'"', tb, rng.choice(['8bit', 'quoted-printable', 'base64'])),
             (b'text/html' + (b'; charset="' + html_label.encode() + b'"' if html_label else b''), hb, rng.choice(['8bit', 'quoted-printable', 'base64'])),
             (b'application/octet-stream; name="a.bin"', data, 'base64')]
    bnd = b'==BOUNDARY_%d==' % rng.randrange(10**6)
    body = b'This is a multi-part message in MIME format.\n'
    for ct, p, cte in parts:
        body += b'--' + bnd + b'\nContent-Type: ' + ct + b'\nContent-Transfer-Encoding: ' + cte.encode() + b'\n\n' + cte_encode(p, cte) + b'\n'
    body += b'--' + bnd + b'--\n'
    raw = header_block(TLD[lang], ew(enc(WORDS[lang], codec), label), b'multipart/mixed; boundary="' + bnd + b'"', None) + b'\n' + body
    return dict(kind='multipart', desc=f'{label}/{lang}/{k}/{"ct" if html_label else "meta"}', raw=raw,
                parts=[dict(check='exact', truth=text + '\n'), dict(check='exact', truth=html + '\n'), dict(check='bytes', orig=data.hex())],
                subject=WORDS[lang])


def case_wide(rng):
    """UTF-16 / UTF-7 text bodies, correctly labelled."""
    lang = rng.choice(list(TEXTS))
    text = para(rng, lang, rng.choice(['word', 'short', 'mid']))
    label, codec = rng.choice([('utf-16', 'utf-16'), ('utf-16le', 'utf-16-le'), ('utf-16be', 'utf-16-be'), ('utf-7', 'utf-7')])
    body = enc(text.replace('\n', '\r\n') + '\r\n', codec)
    cte = 'base64' if label != 'utf-7' else '7bit'
    raw = single(TLD[lang], b'wide', label, body, cte)
    return dict(kind='wide', desc=f'{label}/{lang}', raw=raw, parts=[dict(check='exact', truth=text + '\n')])


def case_nolabel(rng):
    """No charset parameter: detection; truth is what the writer meant."""
    true, codec, langs, _ = rng.choice([c for c in CHARSETS if c[0] not in ('iso-2022-jp',)])
    lang = rng.choice(langs)
    size = rng.choice(['short', 'mid', 'long'])
    text = para(rng, lang, size)
    body = enc(text, codec) + b'\n'
    raw = single(TLD[lang], b'no label', None, body, '8bit')
    n = sum(1 for c in text if ord(c) > 127)
    return dict(kind='nolabel', desc=f'{true}/{lang}/{size}', raw=raw,
                parts=[dict(check='lie', truth=text + '\n', alt=None, strength='strong' if n >= 40 else 'mid')])


# ---------------------------------------------------------------- more cases
def case_sig_few(rng):
    """A Latin-1/1252 letter with few accents and a longer UTF-8 signature."""
    main = rng.choice(["Thanks, the caf\u00e9 is fine for Tuesday.", "See you at the r\u00e9sum\u00e9 review.",
                       "Price is \u00a340, paid na\u00efvely.", "Let's meet at the caf\u00e9.\nBring the slides."])
    sig = rng.choice(["J\u00fcrgen M\u00fcller, Gesch\u00e4ftsf\u00fchrer\nD\u00fcsseldorf, K\u00f6nigsallee 12, Stra\u00dfe",
                      "Fran\u00e7ois L\u00e9vesque \u2014 Directeur g\u00e9n\u00e9ral\nSoci\u00e9t\u00e9 G\u00e9n\u00e9rale, Qu\u00e9bec",
                      "\u0418\u0432\u0430\u043d \u041f\u0435\u0442\u0440\u043e\u0432, \u043c\u0435\u043d\u0435\u0434\u0436\u0435\u0440"])
    label = rng.choice(['iso-8859-1', 'windows-1252'])
    body = main.encode('cp1252') + b'\n-- \n' + sig.encode('utf-8') + b'\n'
    raw = single('com', b'sig', label, body, rng.choice(['8bit', 'quoted-printable']))
    keep = [l for l in main.split('\n') if any(ord(c) > 127 for c in l)]
    return dict(kind='sigfew', desc=f'{label}/{main[:10]}', raw=raw,
                parts=[dict(check='lines', keep=keep, label=label, dbody=body.hex())])


def case_nul(rng):
    """A text with a stray NUL / control: binary rule keeps it byte for byte."""
    label, codec, langs, _ = rng.choice([c for c in CHARSETS if c[0] != 'iso-2022-jp'])
    lang = rng.choice(langs)
    text = para(rng, lang, rng.choice(['mid', 'long']))
    body = bytearray(enc(text, codec) + b'\n')
    i = rng.randrange(len(body))
    body[i:i] = rng.choice([b'\x00', b'\x00\x00', b'\x1a', b'\x07', b'\x0c'])
    raw = single(TLD[lang], b'nul', label, bytes(body), rng.choice(['8bit', 'base64']))
    keep = [l for l in text.split('\n') if any(ord(c) > 127 for c in l)]
    return dict(kind='nul', desc=f'{label}/{lang}', raw=raw, parts=[dict(check='nul', keep=keep, orig=bytes(body).hex())])


def case_html_meta(rng):
    """text/html without charset parameter, labelled by its meta (right or lying)."""
    label, codec, langs, _ = rng.choice([c for c in CHARSETS if c[0] != 'iso-2022-jp'])
    lang = rng.choice(langs)
    text = para(rng, lang, rng.choice(['short', 'mid']))
    lie = rng.random() < 0.3
    meta = label if not lie else rng.choice(['iso-8859-1', 'windows-1252', 'utf-8', 'iso-8859-2'])
    if meta == label:
        lie = False
    html = '<html><head><meta charset="%s"><title>x</title></head><body><p>%s</p></body></html>' % (meta, '<br>\n'.join(text.split('\n')))
    body = enc(html, codec) + b'\n'
    raw = single(TLD[lang], b'html', None, body, rng.choice(['8bit', 'quoted-printable', 'base64']), ctype='text/html')
    n = sum(1 for c in text if ord(c) > 127)
    if lie:
        alt = body.decode(READ.get(meta, 'cp1252'), errors='replace')
        return dict(kind='htmllie', desc=f'{label}-as-{meta}/{lang}', raw=raw,
                    parts=[dict(check='lie', truth=html + '\n', alt=alt, strength='strong' if n >= 40 else 'mid')])
    return dict(kind='html', desc=f'{label}/{lang}', raw=raw, parts=[dict(check='exact', truth=html + '\n')])


def case_rfc2231(rng):
    label, codec, langs, _ = rng.choice([c for c in CHARSETS if c[0] not in ('iso-2022-jp',)])
    lang = rng.choice(langs)
    name = WORDS[lang] + '.pdf'
    v = quote(name.encode(codec), safe='')
    body = b'Hello\n'
    bnd = b'BND'
    att = b'%PDF-1.4\n' + bytes(rng.randrange(256) for _ in range(100))
    raw = (header_block(TLD[lang], b'file', b'multipart/mixed; boundary="BND"', None) + b'\n--BND\nContent-Type: text/plain; charset=us-ascii\n\n' + body +
           b'--BND\nContent-Type: application/pdf\nContent-Disposition: attachment; filename*=' + label.encode() + b"''" + v.encode() +
           b'\nContent-Transfer-Encoding: base64\n\n' + b64(att) + b'--BND--\n')
    return dict(kind='rfc2231', desc=f'{label}/{lang}', raw=raw, parts=[dict(check='exact', truth='Hello\n'), dict(check='bytes', orig=att.hex())],
                filename=name)


KINDS = {'clean': (case_clean, 30), 'damaged': (case_damaged, 30), 'lie': (case_lie, 20), 'binary': (case_binary, 8),
         'mixed': (case_mixed, 8), 'header': (case_header, 12), 'multipart': (case_multipart, 6), 'wide': (case_wide, 4),
         'nolabel': (case_nolabel, 6),
         'sigfew': (case_sig_few, 6), 'nul': (case_nul, 6), 'html': (case_html_meta, 8), 'rfc2231': (case_rfc2231, 5)}


# ---------------------------------------------------------------- checking
def leaves(msg):
    return [p for p in msg.walk() if not p.is_multipart()]


# Romanian s and t with comma below (ISO-8859-16) are the octets of
# ISO-8859-2's (and windows-1250's) with cedilla: in a Subject or a body
# whose label lies, either reading is the writer's text.
COMMA = str.maketrans('șțȘȚ', 'şţŞŢ')


def norm(s):
    s = s.replace('\r\n', '\n').replace('\r', '\n')
    return re.sub(r'charset="?[A-Za-z0-9_.:-]+"?', 'charset=X', s)


def loose(s):
    return ''.join(c for c in s if c != '\ufffd' and not (0x80 <= ord(c) < 0xA0))


def out_text(part):
    payload = part.get_payload(decode=True) or b''
    cs = part.get_content_charset() or 'utf-8'
    try:
        return payload.decode(cs, errors='replace'), payload
    except LookupError:
        return payload.decode('utf-8', errors='replace'), payload


def check_parts(case, out, audit):
    """Returns list of (bucket, detail)."""
    fails = []
    try:
        msg = email.message_from_bytes(out)
    except Exception as e:
        return [('parse-error', str(e))]
    ls = leaves(msg)
    recs = [r for r in audit if r.get('location') == 'body']
    for i, exp in enumerate(case['parts']):
        if i >= len(ls):
            fails.append(('missing-part', str(i)))
            continue
        text, payload = out_text(ls[i])
        rec = recs[i] if i < len(recs) else {}
        v = rec.get('verdict')
        if exp['check'] == 'bytes':
            if payload != bytes.fromhex(exp['orig']):
                fails.append(('binary-changed', f'verdict={v} charset={rec.get("charset")}'))
        elif exp['check'] == 'exact':
            if norm(text).rstrip('\n') != norm(exp['truth']).rstrip('\n'):
                fails.append(('clean-changed', f'verdict={v} used={rec.get("charset")} det={rec.get("detected")}'))
        elif exp['check'] == 'lines':
            t = norm(text)
            lost = [l for l in exp['keep'] if norm(l) not in t]
            if lost:
                fails.append(('label-lines-lost', f'{len(lost)}/{len(exp["keep"])} verdict={v} det={rec.get("detected")} f={[f.get("kind") for f in rec.get("findings", [])]}'))
            if case['kind'] == 'mixed':
                olost = [l for l in exp.get('okeep', []) if norm(l) not in t]
                if olost and not lost:
                    fails.append(('info-mixed-other-not-repaired', f'verdict={v} f={[f.get("kind") for f in rec.get("findings", [])]}'))
                # Every line read as written (the other charset's lines
                # repaired too): `suspicious` says it; else the verdict
                # must say the text is damaged.
                if v not in ('invalid', 'mislabeled') and not lost and olost:
                    fails.append(('info-mixed-verdict', f'verdict={v}'))
            if case['kind'] == 'damaged' and v == 'ok':
                fails.append(('info-damage-verdict-ok', ''))
        elif exp['check'] == 'lie':
            t = norm(text).rstrip('\n')
            truth = norm(exp['truth']).rstrip('\n')
            alt = norm(exp['alt']).rstrip('\n') if exp['alt'] else None
            if t == truth or t.translate(COMMA) == truth.translate(COMMA):
                pass
            elif alt is not None and loose(t) == loose(alt):
                if exp['strength'] == 'strong':
                    fails.append(('lie-missed-strong', f'verdict={v}'))
                elif exp['strength'] == 'mid':
                    fails.append(('info-lie-missed-mid', f'verdict={v}'))
            else:
                # Unlabelled text is a guess (windows-1252 for Latin script).
                bucket = 'info-unlabelled-guess' if case['kind'] == 'nolabel' else (
                    'lie-third-reading' if exp['strength'] != 'thin' else 'info-lie-thin-third')
                fails.append((bucket, f'verdict={v} used={rec.get("charset")} det={rec.get("detected")}'))
    if case.get('subject') is not None:
        raw = msg.get('Subject', '')
        try:
            subj = str(email.header.make_header(email.header.decode_header(raw)))
        except Exception as e:
            subj = f'<undecodable {e}>'
        subj = ' '.join(subj.split())
        truth = ' '.join(case['subject'].split())
        sc = case.get('subject_check', 'exact')
        hrec = [r for r in audit if r.get('location') == 'header:Subject']
        hv = hrec[0].get('verdict') if hrec else None
        if subj.translate(COMMA) != truth.translate(COMMA):
            alt = case.get('subject_alt')
            alt = ' '.join(alt.split()) if alt else None
            if sc == 'either' and alt is not None and loose(subj) == loose(alt):
                pass
            elif sc == 'raw8':
                fails.append(('info-subject-raw8', f'verdict={hv}'))
            elif sc == 'raw8-body':
                # The body's charset, labelled, is the evidence.
                fails.append(('subject-raw8-body-label', f'verdict={hv} got={subj[:60]!r}'))
            elif alt is not None and loose(subj) == loose(alt):
                fails.append(('subject-lie-missed', f'verdict={hv}'))
            else:
                fails.append(('subject-wrong', f'verdict={hv} got={subj[:60]!r}'))
    return fails


def check(case, out, audit):
    """Returns list of (bucket, detail)."""
    fails = []
    parts = case['parts']
    if any(p['check'] == 'nul' for p in parts):
        msg = email.message_from_bytes(out)
        ls = leaves(msg)
        text, payload = out_text(ls[0])
        p = parts[0]
        orig = bytes.fromhex(p['orig'])
        t = norm(text)
        lost = [l for l in p['keep'] if norm(l) not in t]
        # NULs after the last character (a mailer's padding) are not
        # content: the text is converted, the NULs kept where they were.
        padding = b'\x00' not in orig.rstrip(b'\x00\x1a \t\r\n')
        if payload != orig and b'\x00' in orig and padding and not lost and '\x00' in text:
            fails.append(('info-nul-padding-converted', ''))
        elif payload != orig and b'\x00' in orig:
            fails.append(('nul-not-byte-for-byte' + ('-lines-lost' if lost else ''), ''))
        elif payload != orig and len(lost) > 1:
            fails.append(('control-lines-lost', f'{len(lost)}'))
        return fails
    fails = check_parts(case, out, audit)
    if case.get('filename'):
        msg = email.message_from_bytes(out)
        fn = leaves(msg)[1].get_filename()
        if fn != case['filename']:
            fails.append(('filename-wrong', f'got={fn!r}'))
    return fails


def run_one(binp, path):
    out = subprocess.run([binp, 'normalize', path], capture_output=True)
    au = subprocess.run([binp, 'audit', '--format', 'jsonl', path], capture_output=True)
    recs = [json.loads(l) for l in au.stdout.decode().splitlines() if l.strip()]
    return out.stdout, recs, out.returncode


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--n', type=int, default=2000)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--bin', default=os.path.join(os.environ.get('CARGO_TARGET_DIR', 'target'), 'release', 'mailcharset'))
    ap.add_argument('--out', default=None)
    ap.add_argument('--only')
    ap.add_argument('--show', type=int, default=2)
    ap.add_argument('--dump')
    a = ap.parse_args()
    rng = random.Random(a.seed)
    a.out = a.out or tempfile.mkdtemp(prefix='hunt-')
    os.makedirs(a.out, exist_ok=True)
    kinds = [k for k in KINDS if not a.only or k in a.only.split(',')]
    weights = [KINDS[k][1] for k in kinds]
    cases = []
    while len(cases) < a.n:
        k = rng.choices(kinds, weights)[0]
        c = KINDS[k][0](rng)
        if c is None:
            continue
        c['id'] = len(cases)
        c['path'] = os.path.join(a.out, f'{c["id"]:05d}-{k}.eml')
        with open(c['path'], 'wb') as f:
            f.write(c['raw'])
        cases.append(c)
    with ThreadPoolExecutor(2) as ex:
        results = list(ex.map(lambda c: run_one(a.bin, c['path']), cases))
    if a.dump:
        import hashlib
        json.dump({c['path']: [c['kind'], c['desc'], hashlib.sha1(out).hexdigest(), [(r['location'], r['charset'], r['verdict']) for r in recs]]
                   for c, (out, recs, rc) in zip(cases, results)}, open(a.dump, 'w'))
    buckets = defaultdict(list)
    for c, (out, recs, rc) in zip(cases, results):
        if rc != 0:
            buckets['normalize-exit-%d' % rc].append((c, ''))
            continue
        for b, d in check(c, out, recs):
            key = b if b.startswith('info') else f'{b} [{c["kind"]}]'
            buckets[key].append((c, d))
    per_kind = defaultdict(int)
    for c in cases:
        per_kind[c['kind']] += 1
    print('cases:', dict(per_kind))
    for b in sorted(buckets, key=lambda b: (b.startswith('info'), b)):
        items = buckets[b]
        print(f'\n== {b}: {len(items)}')
        descs = defaultdict(int)
        for c, d in items:
            descs[c['desc'].rsplit('/', 1)[0] if c['kind'] != 'header' else c['desc']] += 1
        print('   ', dict(sorted(descs.items(), key=lambda x: -x[1])[:14]))
        for c, d in items[:a.show]:
            print('   ', c['path'], c['desc'], d)
    json.dump({b: [c['path'] for c, _ in v] for b, v in buckets.items()}, open(os.path.join(a.out, 'buckets.json'), 'w'), indent=1)


if __name__ == '__main__':
    main()
