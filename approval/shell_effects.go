package approval

import (
	"regexp"
	"strings"
)

// writerSpec is the option grammar of a program that changes files. Its
// targets are found by effects; an option the table does not know, or a
// word known only at run time where an option may stand, makes the targets
// unknown, and the call then asks.
type writerSpec struct {
	opts *optTable
}

// gnu is the option grammar of GNU tools: options anywhere before --,
// unique prefixes of long options accepted.
func gnu(spec string) writerSpec { return writerSpec{opts: opts(spec, true, true)} }

var writers = map[string]writerSpec{
	"rm":       gnu("f|force i I interactive=? one-file-system no-preserve-root preserve-root=? r|R|recursive d|dir v|verbose help version"),
	"rmdir":    gnu("ignore-fail-on-non-empty p|parents v|verbose help version"),
	"unlink":   gnu("help version"),
	"shred":    gnu("f|force n|iterations= random-source= s|size= u remove=? v|verbose x|exact z|zero help version"),
	"touch":    gnu("a c|no-create d|date= f h|no-dereference m r|reference= t= time= help version"),
	"mkdir":    gnu("m|mode= p|parents v|verbose Z context=? help version"),
	"mkfifo":   gnu("m|mode= Z context=? help version"),
	"mknod":    gnu("m|mode= Z context=? help version"),
	"truncate": gnu("c|no-create o|io-blocks r|reference= s|size= help version"),
	"mv":       gnu("backup=? b f|force i|interactive n|no-clobber strip-trailing-slashes S|suffix= t|target-directory= T|no-target-directory u update=? v|verbose Z|context debug exchange no-copy help version"),
	"cp":       gnu("a|archive attributes-only backup=? b copy-contents d debug f|force i|interactive H l|link L|dereference n|no-clobber P|no-dereference p preserve=? no-preserve= parents R|r|recursive reflink=? remove-destination sparse= strip-trailing-slashes s|symbolic-link S|suffix= t|target-directory= T|no-target-directory u update=? v|verbose x|one-file-system Z context=? keep-directory-symlink exchange help version"),
	"ln":       gnu("backup=? b d|F|directory f|force i|interactive L|logical n|no-dereference P|physical r|relative s|symbolic S|suffix= t|target-directory= T|no-target-directory v|verbose help version"),
	"install":  gnu("backup=? b c C|compare d|directory D g|group= m|mode= o|owner= p|preserve-timestamps s|strip strip-program= S|suffix= t|target-directory= T|no-target-directory v|verbose preserve-context Z context=? debug help version"),
	"chmod":    gnu("c|changes f|silent|quiet v|verbose no-preserve-root preserve-root reference= R|recursive h|no-dereference dereference H L P help version"),
	"chown":    gnu("c|changes f|silent|quiet v|verbose dereference h|no-dereference from= no-preserve-root preserve-root reference= R|recursive H L P help version"),
	"chgrp":    gnu("c|changes f|silent|quiet v|verbose dereference h|no-dereference no-preserve-root preserve-root reference= R|recursive H L P help version"),
	"tee":      gnu("a|append i|ignore-interrupts p output-error=? help version"),
	"sed":      gnu("n|quiet|silent debug e|expression= f|file= follow-symlinks i|in-place=? l|line-length= z|null-data|zero-terminated posix E|r|regexp-extended s|separate sandbox u|unbuffered b|binary help version"),
	"sort":     gnu("b|ignore-leading-blanks d|dictionary-order f|ignore-case g|general-numeric-sort i|ignore-nonprinting M|month-sort h|human-numeric-sort n|numeric-sort R|random-sort random-source= r|reverse sort= V|version-sort batch-size= c check=? C compress-program= debug files0-from= k|key= m|merge o|output= s|stable S|buffer-size= t|field-separator= T|temporary-directory= parallel= u|unique z|zero-terminated help version"),
	"uniq":     gnu("c|count d|repeated D all-repeated=? f|skip-fields= group=? i|ignore-case s|skip-chars= u|unique z|zero-terminated w|check-chars= help version"),
	"dd":       {},
	"curl":     {opts: curlOpts},
	"wget":     gnu("V|version h|help b|background e|execute= o|output-file= a|append-output= d|debug q|quiet v|verbose n= no-verbose report-speed= i|input-file= F|force-html B|base= config= no-config rejected-log= t|tries= retry-connrefused retry-on-http-error= O|output-document= no-clobber no-netrc c|continue start-pos= progress= show-progress N|timestamping no-if-modified-since no-use-server-timestamps S|server-response spider T|timeout= dns-timeout= connect-timeout= read-timeout= w|wait= waitretry= random-wait no-proxy Q|quota= bind-address= limit-rate= no-dns-cache restrict-file-names= ignore-case 4|inet4-only 6|inet6-only prefer-family= user= password= ask-password use-askpass= no-iri local-encoding= remote-encoding= unlink xattr no-directories x|force-directories no-host-directories protocol-directories P|directory-prefix= cut-dirs= http-user= http-password= no-cache default-page= E|adjust-extension ignore-length header= compression= max-redirect= proxy-user= proxy-password= referer= save-headers U|user-agent= no-http-keep-alive no-cookies load-cookies= save-cookies= keep-session-cookies post-data= post-file= method= body-data= body-file= content-disposition content-on-error auth-no-challenge secure-protocol= https-only no-check-certificate certificate= certificate-type= private-key= private-key-type= ca-certificate= ca-directory= crl-file= pinnedpubkey= ciphers= no-hsts hsts-file= ftp-user= ftp-password= no-remove-listing no-glob no-passive-ftp preserve-permissions retr-symlinks ftps-implicit ftps-resume-ssl ftps-clear-data-connection ftps-fallback-to-ftp warc-file= warc-header= warc-max-size= warc-cdx warc-dedup= no-warc-compression no-warc-digests no-warc-keep-log warc-tempdir= r|recursive l|level= delete-after k|convert-links convert-file-only backups= K|backup-converted m|mirror p|page-requisites strict-comments A|accept= R|reject= accept-regex= reject-regex= regex-type= D|domains= exclude-domains= follow-ftp follow-tags= ignore-tags= H|span-hosts L|relative I|include-directories= trust-server-names X|exclude-directories= no-parent"),
	"tar":      {opts: tarOpts},
}

// curlOpts is curl 7.88's `curl --help all` (curl also accepts unique
// prefixes and --no-X for every switch X).
var curlOpts = opts("abstract-unix-socket= alt-svc= anyauth a|append aws-sigv4= basic cacert= capath= E|cert= cert-status cert-type= ciphers= compressed compressed-ssh K|config= connect-timeout= connect-to= C|continue-at= b|cookie= c|cookie-jar= create-dirs create-file-mode= crlf crlfile= curves= d|data= data-ascii= data-binary= data-raw= data-urlencode= delegation= digest q|disable disable-eprt disable-epsv disallow-username-in-url dns-interface= dns-ipv4-addr= dns-ipv6-addr= dns-servers= doh-cert-status doh-insecure doh-url= D|dump-header= egd-file= engine= etag-compare= etag-save= expect100-timeout= f|fail fail-early fail-with-body false-start F|form= form-escape form-string= ftp-account= ftp-alternative-to-user= ftp-create-dirs ftp-method= ftp-pasv P|ftp-port= ftp-pret ftp-skip-pasv-ip ftp-ssl-ccc ftp-ssl-ccc-mode= ftp-ssl-control G|get g|globoff happy-eyeballs-timeout-ms= haproxy-protocol I|head H|header= h|help=? hostpubmd5= hostpubsha256= hsts= http0.9 0|http1.0 http1.1 http2 http2-prior-knowledge http3 http3-only ignore-content-length i|include k|insecure interface= 4|ipv4 6|ipv6 json= j|junk-session-cookies keepalive-time= key= key-type= krb= libcurl= limit-rate= l|list-only local-port= L|location location-trusted login-options= mail-auth= mail-from= mail-rcpt= mail-rcpt-allowfails M|manual max-filesize= max-redirs= m|max-time= metalink negotiate n|netrc netrc-file= netrc-optional :|next no-alpn N|no-buffer no-clobber no-keepalive no-npn no-progress-meter no-sessionid noproxy= ntlm ntlm-wb oauth2-bearer= o|output= output-dir= Z|parallel parallel-immediate parallel-max= pass= path-as-is pinnedpubkey= post301 post302 post303 preproxy= #|progress-bar proto= proto-default= proto-redir= x|proxy= proxy-anyauth proxy-basic proxy-cacert= proxy-capath= proxy-cert= proxy-cert-type= proxy-ciphers= proxy-crlfile= proxy-digest proxy-header= proxy-insecure proxy-key= proxy-key-type= proxy-negotiate proxy-ntlm proxy-pass= proxy-pinnedpubkey= proxy-service-name= proxy-ssl-allow-beast proxy-ssl-auto-client-cert proxy-tls13-ciphers= proxy-tlsauthtype= proxy-tlspassword= proxy-tlsuser= proxy-tlsv1 U|proxy-user= proxy1.0= p|proxytunnel pubkey= Q|quote= random-file= r|range= rate= raw e|referer= J|remote-header-name O|remote-name remote-name-all R|remote-time remove-on-error X|request= request-target= resolve= retry= retry-all-errors retry-connrefused retry-delay= retry-max-time= sasl-authzid= sasl-ir service-name= S|show-error s|silent socks4= socks4a= socks5= socks5-basic socks5-gssapi socks5-gssapi-nec socks5-gssapi-service= socks5-hostname= Y|speed-limit= y|speed-time= ssl ssl-allow-beast ssl-auto-client-cert ssl-no-revoke ssl-reqd ssl-revoke-best-effort 2|sslv2 3|sslv3 stderr= styled-output suppress-connect-headers tcp-fastopen tcp-nodelay t|telnet-option= tftp-blksize= tftp-no-options z|time-cond= tls-max= tls13-ciphers= tlsauthtype= tlspassword= tlsuser= 1|tlsv1 tlsv1.0 tlsv1.1 tlsv1.2 tlsv1.3 tr-encoding trace= trace-ascii= trace-time unix-socket= T|upload-file= url= url-query= B|use-ascii u|user= A|user-agent= v|verbose V|version w|write-out= xattr", true, true)

// tarOpts is GNU tar 1.34's `tar --help`.
var tarOpts = opts("A|catenate|concatenate c|create delete d|diff|compare r|append test-label t|list u|update x|extract|get check-device g|listed-incremental= G|incremental hole-detection= ignore-failed-read level= no-check-device no-seek n|seek occurrence=? sparse-version= S|sparse add-file= C|directory= exclude= exclude-backups exclude-caches exclude-caches-all exclude-caches-under exclude-ignore= exclude-ignore-recursive= exclude-tag= exclude-tag-all= exclude-tag-under= exclude-vcs exclude-vcs-ignores no-null no-recursion no-unquote no-verbatim-files-from null verbatim-files-from recursion T|files-from= unquote X|exclude-from= anchored ignore-case no-anchored no-ignore-case no-wildcards no-wildcards-match-slash wildcards wildcards-match-slash keep-directory-symlink keep-newer-files k|keep-old-files no-overwrite-dir one-top-level=? overwrite overwrite-dir recursive-unlink remove-files skip-old-files U|unlink-first W|verify ignore-command-error no-ignore-command-error O|to-stdout to-command= atime-preserve=? clamp-mtime delay-directory-restore group= group-map= mode= mtime= m|touch no-delay-directory-restore no-same-owner no-same-permissions numeric-owner owner= owner-map= p|preserve-permissions|same-permissions same-owner sort= s|preserve-order|same-order acls no-acls no-selinux no-xattrs selinux xattrs xattrs-exclude= xattrs-include= force-local f|file= F|info-script|new-volume-script= L|tape-length= M|multi-volume rmt-command= rsh-command= volno-file= b|blocking-factor= B|read-full-records i|ignore-zeros record-size= H|format= old-archive|portability pax-option= posix V|label= a|auto-compress I|use-compress-program= j|bzip2 J|xz lzip lzma lzop no-auto-compress zstd z|gzip|gunzip|ungzip Z|compress|uncompress backup=? hard-dereference h|dereference K|starting-file= newer-mtime= N|newer|after-date= one-file-system P|absolute-names suffix= strip-components= transform|xform= checkpoint=? checkpoint-action= full-time index-file= l|check-links no-quote-chars= quote-chars= quoting-style= R|block-number show-defaults show-omitted-dirs show-snapshot-field-ranges show-transformed-names|show-stored-names totals=? utc v|verbose warning= w|interactive|confirmation o ?|help restrict usage version", true, true)

// effects records the files a known writer changes.
func (w *shellWalker) effects(base string, args []word, sc *scope) {
	spec, ok := writers[base]
	if !ok {
		return
	}
	switch base {
	case "dd":
		for _, a := range args {
			if strings.HasPrefix(a.text, "of=") {
				t := a
				t.text = strings.TrimPrefix(a.text, "of=")
				t.lead = max(t.lead-3, 0)
				w.write(t, sc, "dd of=")
			} else if a.dyn && a.lead < 3 {
				w.unknownWrite(sc, "dd", "an operand known only at run time may be of=FILE")
			}
		}
		return
	case "curl":
		args = curlNegations(args)
	case "tar":
		args = tarOldStyle(args)
	case "chmod":
		args = chmodModes(args)
	case "uniq":
		for _, a := range args {
			if !a.dyn && len(a.text) > 1 && (a.text[0] == '+' || a.text[0] == '-') && isDigits(a.text[1:]) {
				w.unknownWrite(sc, base, "the obsolete option "+a.text+" may be a file name")
				return
			}
		}
	}
	p := spec.opts.parse(args)
	if why := p.uncertain(); why != "" {
		w.unknownWrite(sc, base, why)
		return
	}
	switch base {
	case "sed":
		w.sed(p, sc)
	case "curl":
		w.curl(p, sc)
	case "wget":
		w.wget(p, sc)
	case "tar":
		w.tar(p, sc)
	case "sort":
		if _, ok := p.has("--compress-program"); ok {
			w.opaque("sort --compress-program runs a program: never auto-approved")
		}
		for _, h := range p.all("--output", "--temporary-directory") {
			w.write(h.value, sc, "sort "+h.name)
		}
	case "uniq":
		if len(p.operands) > 1 {
			w.write(p.operands[1], sc, "uniq OUTPUT")
		}
	case "cp", "ln", "install", "mv":
		w.copyTargets(base, p, sc)
	default:
		targets := p.operands
		switch base {
		case "mknod":
			targets = targets[:min(1, len(targets))]
		case "chmod", "chown", "chgrp":
			if _, ok := p.has("--reference"); !ok && len(targets) > 0 {
				targets = targets[1:] // MODE or OWNER
			}
		}
		for _, t := range targets {
			w.write(t, sc, base)
		}
	}
}

// unknownWrite records that a command writes files chatls can't name.
func (w *shellWalker) unknownWrite(sc *scope, via, why string) {
	w.a.writes = append(w.a.writes, writeTarget{via: via, nested: sc.nested,
		reason: via + " has " + strings.TrimPrefix(why, "an ") + "; what it writes can't be determined"})
}

// copyTargets: cp/ln/install write their destination (-t DIR or the last
// operand); mv also removes its sources; install -d creates every operand.
func (w *shellWalker) copyTargets(base string, p optParse, sc *scope) {
	if _, ok := p.has("--strip-program"); ok {
		w.opaque("install --strip-program runs a program: never auto-approved")
	}
	// What cp, ln, mv and install put in place may be a symlink (ln -s,
	// cp -s, cp -a of a link, mv of a link): a later write through it in
	// the same command can land anywhere (created).
	put := func(t word, via string) {
		w.write(t, sc, via)
		w.created(t, sc)
	}
	ops := p.operands
	if h, ok := p.has("--target-directory"); ok {
		put(h.value, base+" -t")
		if base == "mv" {
			for _, t := range ops {
				w.write(t, sc, base)
			}
		}
		return
	}
	if _, ok := p.has("--directory"); ok && base == "install" || base == "mv" {
		for _, t := range ops {
			put(t, base)
		}
		return
	}
	switch {
	case len(ops) >= 2:
		put(ops[len(ops)-1], base)
	case len(ops) == 1 && base == "ln":
		// ln TARGET makes a link named after it in the current directory.
		t := ops[0]
		t.text = lastElem(t.text)
		t.lead = len(t.text)
		put(t, base)
	}
}

// sed: -i edits its files in place; the e and w commands run commands and
// write files from inside the script.
func (w *shellWalker) sed(p optParse, sc *scope) {
	var scripts []word
	for _, h := range p.all("--expression") {
		scripts = append(scripts, h.value)
	}
	if _, ok := p.has("--file"); ok {
		w.opaque("sed -f runs a script file whose contents are not checked")
	}
	files := p.operands
	if len(scripts) == 0 && len(files) > 0 {
		if _, ok := p.has("--file"); !ok {
			scripts, files = files[:1], files[1:]
		}
	}
	// GNU sed joins its -e scripts with newlines and parses them as one.
	var texts []string
	for _, s := range scripts {
		if s.dyn {
			w.opaque("the sed script is known only at run time")
			return
		}
		texts = append(texts, s.text)
	}
	script := parseSedScript(strings.Join(texts, "\n"))
	switch {
	case script.bad != "":
		w.opaque("the sed script could not be followed (%s): it may run commands or write files", script.bad)
	case script.runs:
		w.opaque("the sed script runs commands (the e command or the s///e flag): never auto-approved")
	}
	for _, f := range script.writes {
		if !harmlessDevice(f) {
			w.write(word{text: f, lead: len(f)}, sc, "sed w")
		}
	}
	for _, f := range script.reads {
		w.addRead(f, sc)
	}
	h, ok := p.has("--in-place")
	if !ok {
		return
	}
	suffix := h.value
	for _, t := range files {
		w.write(t, sc, "sed -i")
		switch {
		case suffix.dyn || t.dyn:
			w.unknownWrite(sc, "sed -i", "a backup name known only at run time")
		case suffix.text != "":
			// The original is renamed to its backup name (sedBackupName).
			for _, b := range sedBackupNames(t.text, suffix.text) {
				w.write(word{text: b, lead: len(b)}, sc, "sed -i backup")
			}
		}
	}
}

// addRead records a file the last recorded command reads (sed r FILE):
// the sensitive-path check and read deny rules look at it.
func (w *shellWalker) addRead(f string, sc *scope) {
	if len(w.a.commands) == 0 || harmlessDevice(f) || f == "/dev/stdin" {
		return
	}
	c := &w.a.commands[len(w.a.commands)-1]
	if p, ok := w.joinPath(sc.cwd, f); ok {
		c.reads = append(c.reads[:len(c.reads):len(c.reads)], p)
	} else {
		c.unknownRead = true
	}
}

// curlNegations turns --no-X into --X for curl's switches, as curl does.
func curlNegations(args []word) []word {
	out := args
	for i, a := range args {
		if a.dyn || !strings.HasPrefix(a.text, "--no-") || strings.Contains(a.text, "=") {
			continue
		}
		if _, _, ok := curlOpts.lookupLong(a.text[2:]); ok {
			continue
		}
		if d, _, ok := curlOpts.lookupLong(a.text[5:]); ok && d.kind == noArg {
			if &out[0] == &args[0] {
				out = append([]word(nil), args...)
			}
			out[i].text = "--" + a.text[5:]
		}
	}
	return out
}

// curl writes -o files (or, with -O/-J, a file named by the server in the
// current or --output-dir directory) and -D, -c, --trace… files.
func (w *shellWalker) curl(p optParse, sc *scope) {
	if _, ok := p.has("--config"); ok {
		w.opaque("curl -K reads options from a file, which can name files to write")
	}
	for _, h := range p.all("--write-out") {
		if h.value.dyn || strings.Contains(h.value.text, "%output{") || strings.HasPrefix(h.value.text, "@") {
			w.opaque("curl -w can write to files (%%output{…})")
		}
	}
	dir := word{text: ".", lead: 1}
	if h, ok := p.has("--output-dir"); ok {
		dir = h.value
	}
	for _, h := range p.all("--output") {
		if h.value.text == "-" && !h.value.dyn {
			continue
		}
		t := h.value
		if dir.text != "." || dir.dyn {
			t = joinWord(dir, t)
		}
		w.write(t, sc, "curl -o")
	}
	if _, ok := p.has("--remote-name", "--remote-name-all", "--remote-header-name"); ok {
		w.write(dir, sc, "curl -O (a file named by the server in this directory)")
	}
	for _, h := range p.all("--dump-header", "--cookie-jar", "--trace", "--trace-ascii", "--stderr", "--libcurl", "--etag-save", "--hsts", "--alt-svc") {
		if h.value.text == "-" && !h.value.dyn || h.value.text == "%" && h.name == "--trace" {
			continue
		}
		w.write(h.value, sc, "curl "+h.name)
	}
}

// wget downloads into the current directory (or -P DIR) under names the
// server chooses, unless -O names the file; -o/-a write a log.
func (w *shellWalker) wget(p optParse, sc *scope) {
	if _, ok := p.has("--execute", "--config", "--use-askpass"); ok {
		w.opaque("wget -e/--config/--use-askpass run wgetrc commands or programs: never auto-approved")
	}
	if h, ok := p.has("--output-document"); ok {
		if h.value.text != "-" || h.value.dyn {
			w.write(h.value, sc, "wget -O")
		}
	} else {
		dir := word{text: ".", lead: 1}
		if h, ok := p.has("--directory-prefix"); ok {
			dir = h.value
		}
		w.write(dir, sc, "wget (files named by the server in this directory)")
	}
	for _, h := range p.all("--output-file", "--append-output", "--save-cookies", "--rejected-log", "--warc-file", "--hsts-file", "--warc-tempdir") {
		w.write(h.value, sc, "wget "+h.name)
	}
}

// tarOldStyle expands `tar xzf a.tar` (first word without a dash: bundled
// options whose values follow in order) into `tar -x -z -f a.tar`.
func tarOldStyle(args []word) []word {
	if len(args) == 0 || args[0].dyn || strings.HasPrefix(args[0].text, "-") || args[0].text == "" {
		return args
	}
	var out []word
	next := 1
	for i := 0; i < len(args[0].text); i++ {
		c := args[0].text[i]
		d, ok := tarOpts.shortDef(c)
		if !ok {
			return args // not bundled options; let the parser report it
		}
		out = append(out, word{text: "-" + string(c), lead: 2})
		if d.kind == reqArg && next < len(args) {
			out = append(out, args[next])
			next++
		}
	}
	return append(out, args[next:]...)
}

// tar: extracting writes into -C DIR (or the current directory) — member
// names are unknown, so the directory is what is checked; -P writes
// anywhere. Creating writes the archive (-f); --remove-files removes inputs.
func (w *shellWalker) tar(p optParse, sc *scope) {
	if _, ok := p.has("--to-command", "--use-compress-program", "--rsh-command", "--rmt-command", "--info-script", "--checkpoint-action"); ok {
		w.opaque("tar runs a program given in its options: never auto-approved")
	}
	if h, ok := p.has("--file"); ok && !h.value.dyn && !strings.Contains(h.value.text, "/") && strings.Contains(h.value.text, ":") {
		if _, local := p.has("--force-local"); !local {
			w.opaque("tar -f HOST:FILE runs a remote shell: never auto-approved")
		}
	}
	_, extract := p.has("--extract")
	_, create := p.has("--create", "--append", "--update", "--catenate", "--delete")
	if extract {
		if _, ok := p.has("--absolute-names"); ok {
			w.unknownWrite(sc, "tar -P", "absolute member names")
		}
		if _, ok := p.has("--to-stdout"); !ok {
			dir := word{text: ".", lead: 1}
			for _, h := range p.all("--directory") {
				dir = joinWord(dir, h.value) // each -C is relative to the previous one
			}
			if h, ok := p.has("--one-top-level"); ok && h.has {
				dir = joinWord(dir, h.value)
			}
			w.write(dir, sc, "tar -x (files from the archive in this directory)")
			w.created(dir, sc) // an archive can hold symlinks
		}
	}
	if create {
		if h, ok := p.has("--file"); ok {
			if h.value.text != "-" || h.value.dyn {
				w.write(h.value, sc, "tar -f")
			}
		} else {
			w.unknownWrite(sc, "tar", "no -f: the archive goes to $TAPE or the default device")
		}
		if _, ok := p.has("--remove-files"); ok {
			for _, t := range p.operands {
				w.write(t, sc, "tar --remove-files")
			}
		}
	}
	for _, h := range p.all("--listed-incremental", "--index-file", "--volno-file") {
		w.write(h.value, sc, "tar "+h.name)
	}
}

var chmodMode = regexp.MustCompile(`^-[rwxXstugoa0-7,+=-]+$`)

// chmodModes turns chmod's modes that look like options (-w, -x) into
// operands, as chmod reads them.
func chmodModes(args []word) []word {
	out := args
	for i, a := range args {
		if !a.dyn && a.text == "--" {
			break
		}
		if !a.dyn && chmodMode.MatchString(a.text) && a.text != "--" {
			if len(out) > 0 && &out[0] == &args[0] {
				out = append([]word(nil), args...)
			}
			out[i].text = "mode:" + a.text
		}
	}
	return out
}

// joinWord is dir/name as one word (name stays absolute when it is).
func joinWord(dir, name word) word {
	if !name.dyn && strings.HasPrefix(name.text, "/") || name.text == "" && !name.dyn {
		return name
	}
	out := word{text: strings.TrimSuffix(dir.text, "/") + "/" + name.text, dyn: dir.dyn || name.dyn, glob: dir.glob || name.glob}
	switch {
	case dir.dyn:
		out.lead = dir.lead
	case name.dyn:
		out.lead = len(strings.TrimSuffix(dir.text, "/")) + 1 + name.lead
	default:
		out.lead = len(out.text)
	}
	return out
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func lastElem(p string) string {
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
